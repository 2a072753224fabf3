package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Version is the answer of /version.
type Version struct {
	metav1.TypeMeta `json:",inline"`
	// AgentVersion is the agent's release.
	AgentVersion string `json:"agentVersion"`
	// ServedVersion is the newest API version the agent serves.
	ServedVersion string `json:"servedVersion"`
	// ReproducedKubeletVersion is the kubelet version the agent reproduces
	// (see SourceList.ReproducedKubeletVersion).
	ReproducedKubeletVersion string `json:"reproducedKubeletVersion"`
	// NodeKubeletVersion is the version of the node's kubelet as the agent
	// learnt it (see SourceList.NodeKubeletVersion); empty when unknown.
	NodeKubeletVersion string `json:"nodeKubeletVersion,omitempty"`
	// NodeName is the node the agent runs for.
	NodeName string `json:"nodeName"`
	// GoVersion is the Go release the agent was built with.
	GoVersion string `json:"goVersion"`
}

// Status is the body of every error answer.
type Status struct {
	metav1.TypeMeta `json:",inline"`
	// Code is the HTTP status code.
	Code int `json:"code"`
	// Message says what went wrong.
	Message string `json:"message"`
}
