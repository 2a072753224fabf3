package agent

import (
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/redact"
)

// KubeletConfig returns the kubelet configuration file the agent read,
// masked (redact.KubeletConfig) whatever --expose-pod-specs says.
func (a *Agent) KubeletConfig() v1alpha1.KubeletConfig {
	out := v1alpha1.KubeletConfig{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindKubeletConfig), NodeName: a.cfg.Node.NodeName}
	if a.cfg.Node.Kubelet == nil {
		out.Reason = "the agent read no kubelet configuration: it runs without --" + nodeenv.FlagKubeletConfig
		return out
	}
	out.Config = redact.KubeletConfig(a.cfg.Node.Kubelet)
	return out
}
