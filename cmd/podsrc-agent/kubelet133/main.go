// Command podsrc-agent, built for kubelet v1.33: podsrc-agent linking
// the static pod decoder of that minor (pkg/staticpod/kubelet133), with its
// own module so that it can link that minor's k8s.io/kubernetes.
package main

import (
	"os"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/staticpod/kubelet133"
)

func main() { os.Exit(agent.Main(kubelet133.New())) }
