// Command podsrc-agent, built for kubelet v1.37: the agent with that minor's
// static pod decoder (./decoder) and admit handlers (./admission), built
// against its own k8s.io/kubernetes.
//
// Each kubelet minor is one module (cmd/podsrc-agent/kubelet13N), because
// k8s.io/kubernetes can only be required with replace directives for its
// staging modules: the root module, which kubectl-podsrc is installed from,
// must stay free of them, and each minor needs its own k8s.io/kubernetes.
package main

import (
	"os"

	"github.com/podsrc/podsrc/cmd/podsrc-agent/kubelet137/admission"
	"github.com/podsrc/podsrc/cmd/podsrc-agent/kubelet137/decoder"
	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

func main() { os.Exit(agent.Main(kubeletminor.V137, decoder.New(), admission.New)) }
