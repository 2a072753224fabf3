// Command podsrc-agent, built for kubelet v1.35: podsrc-agent linking
// the static pod decoder of that minor (pkg/staticpod/kubelet135), with its
// own module so that it can link that minor's k8s.io/kubernetes.
package main

import (
	"os"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/staticpod/kubelet135"
)

func main() { os.Exit(agent.Main(kubelet135.New())) }
