package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// KindKubeletConfig is the kind of the answer of KubeletConfigPath.
const KindKubeletConfig = "KubeletConfig"

// KubeletConfig is the kubelet configuration file the agent read
// (--kubelet-config), as it read it, masked: the static pod URL's
// credentials and its headers' values are never served.
type KubeletConfig struct {
	metav1.TypeMeta `json:",inline"`
	// NodeName is the node the agent runs for.
	NodeName string `json:"nodeName"`
	// Config is the configuration, masked; nil when the agent read none,
	// and Reason says why.
	Config *kubeletv1beta1.KubeletConfiguration `json:"config,omitempty"`
	Reason string                               `json:"reason,omitempty"`
}
