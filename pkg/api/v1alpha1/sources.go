package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source kinds, named as the kubelet names its sources.
const (
	SourceFile = "file"
	SourceHTTP = "http"
	SourceAPI  = "api"
)

// SourceList is the answer of /api/v1alpha1/sources.
type SourceList struct {
	metav1.TypeMeta `json:",inline"`
	// NodeName is the node the agent runs for.
	NodeName string `json:"nodeName"`
	// Mode is the merge's notification mode.
	Mode string `json:"mode"`
	// AllSourcesSeen is true when every configured source has sent its
	// first full list: the kubelet's readiness to sync pods.
	AllSourcesSeen bool `json:"allSourcesSeen"`
	// AgentVersion is the podsrc agent's version.
	AgentVersion string `json:"agentVersion"`
	// ReproducedKubeletVersion is the kubelet version the agent reproduces
	// (static pod decoding and UIDs, the merge, the PLEG).
	ReproducedKubeletVersion string `json:"reproducedKubeletVersion"`
	// NodeKubeletVersion is the version of the node's kubelet, as its Node
	// object's status.nodeInfo.kubeletVersion says; empty until the API
	// server source has read the Node, and without that source.
	NodeKubeletVersion string `json:"nodeKubeletVersion,omitempty"`
	// KubeletSkew, when set, says that the node's kubelet is of another
	// minor than ReproducedKubeletVersion and what to run: static pod UIDs, config
	// hashes, validation and the merge then follow another kubelet than
	// the node's. The agent is not ready meanwhile.
	KubeletSkew string `json:"kubeletSkew,omitempty"`
	// Journal is the state of the agent's journal.
	Journal *JournalStatus `json:"journal,omitempty"`
	// Items has one entry per configured source, sorted by name.
	Items []Source `json:"items"`
}

// Source is the state of one pod source.
type Source struct {
	// TypeMeta, NodeName, AllSourcesSeen and Journal are empty from the
	// agent (its SourceList carries them); kubectl podsrc sets them on
	// every item of the flat List it prints, so that one jsonpath fits one
	// node or many.
	metav1.TypeMeta `json:",inline"`
	NodeName        string         `json:"nodeName,omitempty"`
	AllSourcesSeen  bool           `json:"allSourcesSeen,omitempty"`
	Journal         *JournalStatus `json:"journal,omitempty"`
	// Name is the kubelet's name of the source: file, http or api.
	Name string `json:"name"`
	// Target is what the source watches: the static pod path on the host,
	// the static pod URL, or the API server's address.
	Target string `json:"target"`
	// Seen is true once the source has sent its first full list.
	Seen bool `json:"seen"`
	// LastUpdate is when the source last sent a list.
	LastUpdate *metav1.Time `json:"lastUpdate,omitempty"`
	// Pods is the number of pods the source has now.
	Pods int `json:"pods"`
	// Updates counts the lists the source sent.
	Updates int64 `json:"updates"`
	// LastError is the source's last error, and LastErrorTime its time,
	// until the part of the source that failed next succeeds.
	LastError     string       `json:"lastError,omitempty"`
	LastErrorTime *metav1.Time `json:"lastErrorTime,omitempty"`
	// ClearedError is the last error the source recovered from.
	ClearedError *ClearedError `json:"clearedError,omitempty"`
	// RejectedFiles are the manifests that contribute no pod (file source).
	RejectedFiles []RejectedFile `json:"rejectedFiles,omitempty"`
	// ShadowedFiles are manifests whose pod another file replaces (file source).
	ShadowedFiles []ShadowedFile `json:"shadowedFiles,omitempty"`
	// WarnedFiles are manifests whose pod the kubelet accepts and warns
	// about in its log, on the minors whose kubelet warns: files (file
	// source), or the URL's body while it is a single pod with warnings
	// (http source; Path is the URL).
	WarnedFiles []WarnedFile `json:"warnedFiles,omitempty"`
}

// ClearedError is an error a source recovered from: what it was, when it
// happened and when the part of the source that failed next succeeded.
type ClearedError struct {
	Error       string      `json:"error"`
	Time        metav1.Time `json:"time"`
	ClearedTime metav1.Time `json:"clearedTime"`
}

// RejectedFile is a manifest that failed to decode or validate.
type RejectedFile struct {
	Path  string      `json:"path"`
	Error string      `json:"error"`
	Since metav1.Time `json:"since"`
}

// WarnedFile is a valid manifest the kubelet's decoder warns about. The
// kubelet logs each warning text once per process, naming only the first
// pod; podsrc lists every file, with each of its warnings once.
type WarnedFile struct {
	Path string `json:"path"`
	// Pod is the namespace/name the file defines.
	Pod string `json:"pod"`
	// Warnings are the decoder's warnings, in podsrc's words naming the
	// kubelet version that warns.
	Warnings []string `json:"warnings"`
}

// ShadowedFile is a valid manifest whose pod is replaced by the pod of a
// file read later, which the kubelet keeps.
type ShadowedFile struct {
	Path string `json:"path"`
	// By is the file whose pod the kubelet keeps.
	By string `json:"by"`
	// Pod is the namespace/name both files define.
	Pod string `json:"pod"`
}
