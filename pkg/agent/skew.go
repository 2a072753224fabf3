package agent

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// nodeKubelet returns the version of the node's kubelet as a source learnt
// it (the API server source, from the Node object), or "" when none did.
func (a *Agent) nodeKubelet() string {
	for _, s := range a.sources {
		if v := s.src.Status().NodeKubeletVersion; v != "" {
			return v
		}
	}
	return ""
}

// kubeletSkew says, when the node's kubelet, of version node, is of
// another minor than the one this agent build reproduces, that and what to
// run; "" when they agree or the node's kubelet is not known.
func (a *Agent) kubeletSkew(node string) string {
	return kubeletSkew(a.kubelet, a.reproducedKubeletVersion(), node)
}

// kubeletSkew compares the kubelet minor an agent reproduces, of version
// reproduced, with the node's kubelet version.
func kubeletSkew(minor kubeletminor.Minor, reproduced, node string) string {
	if node == "" {
		return ""
	}
	nm, err := kubeletminor.Of(node)
	if err != nil {
		return fmt.Sprintf("the node's kubelet version %q cannot be read (%v); this agent reproduces kubelet %s", node, err, reproduced)
	}
	if nm == minor {
		return ""
	}
	return fmt.Sprintf("the node runs kubelet %s but this agent reproduces kubelet %s: static pod UIDs, config hashes, validation and the merge may differ from the kubelet's; %s", node, reproduced, kubeletminor.SkewAdvice(node))
}
