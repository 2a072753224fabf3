// Command podsrc-agent, built for kubelet v1.34: podsrc-agent linking
// the static pod decoder of that minor (pkg/staticpod/kubelet134), with its
// own module so that it can link that minor's k8s.io/kubernetes.
package main

import (
	"os"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/staticpod/kubelet134"
)

func main() { os.Exit(agent.Main(kubelet134.New())) }
