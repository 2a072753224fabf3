// Command podsrc-agent runs podsrc on one node; this build reproduces
// kubelet v1.36 (pkg/staticpod/kubelet136). It lives in a module of its own
// because the kubelet-exact static pod decoder it injects needs
// k8s.io/kubernetes, whose replace directives must stay out of the root
// module that kubectl-podsrc is installed from. The builds for older
// kubelet minors are the modules in kubelet133, kubelet134 and kubelet135.
package main

import (
	"os"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/staticpod/kubelet136"
)

func main() { os.Exit(agent.Main(kubelet136.New())) }
