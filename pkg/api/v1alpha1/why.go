package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// KindWhyReport is the kind of kubectl podsrc why's answer. The plugin
// computes it from what the agent and the API server hold; no agent
// serves it.
const KindWhyReport = "WhyReport"

// Verdicts of a stage and of a whole report.
const (
	// VerdictOK says the stage did what the kubelet needs.
	VerdictOK = "ok"
	// VerdictFailing says the stage is where the pod is stuck.
	VerdictFailing = "failing"
	// VerdictUnknown says the stage cannot be known: no permission, no
	// data, or an earlier stage failed so that it was not reached.
	VerdictUnknown = "unknown"
)

// Stage names, stable for scripts. A static pod from a file goes through
// file, decode, shadow, config, admission, mirror, sandbox, containers;
// one from the static pod URL through url, config, admission, mirror,
// sandbox, containers; a pod of the API server through binding,
// api-source, config, admission, sandbox, containers.
const (
	// StageFile: the manifest is in the static pod path, present and a
	// regular file.
	StageFile = "file"
	// StageDecode: the manifest was read and decoded (and validated).
	StageDecode = "decode"
	// StageShadow: no other manifest defines a pod of the same namespace
	// and name that the kubelet keeps instead.
	StageShadow = "shadow"
	// StageURL: the static pod URL was fetched and its body accepted.
	StageURL = "url"
	// StageBinding: the pod is in the API server and bound to this node.
	StageBinding = "binding"
	// StageAPISource: the kubelet's API source has seen its first list.
	StageAPISource = "api-source"
	// StageConfig: the pod is in the kubelet's merged configuration.
	StageConfig = "config"
	// StageAdmission: the kubelet's admit handlers let the pod in when it
	// was added.
	StageAdmission = "admission"
	// StageMirror: the static pod's mirror pod is in the API server and
	// mirrors the pod the kubelet runs.
	StageMirror = "mirror"
	// StageSandbox: the runtime has a ready sandbox for the pod.
	StageSandbox = "sandbox"
	// StageContainers: every container runs (or completed as its restart
	// policy wants).
	StageContainers = "containers"
)

// WhyReport is kubectl podsrc why's answer for one pod on one node: the
// kubelet's pipeline for it, stage by stage.
type WhyReport struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string `json:"nodeName"`
	// Target is the pod or manifest path as it was asked for.
	Target string `json:"target"`
	// Pod is what the pipeline knows of the pod.
	Pod WhyPod `json:"pod"`
	// Verdict is ok when every stage is ok, failing when one fails,
	// unknown otherwise.
	Verdict string `json:"verdict"`
	// Stage is the first stage whose verdict is not ok; empty when all are.
	Stage string `json:"stage,omitempty"`
	// Suggestion is a one-line fix for Stage, a command to run where
	// there is one.
	Suggestion string `json:"suggestion,omitempty"`
	// Stages are in the order the kubelet goes through them.
	Stages []WhyStage `json:"stages"`
}

// WhyPod identifies the pod of a report; fields not known are empty.
type WhyPod struct {
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name,omitempty"`
	UID       types.UID `json:"uid,omitempty"`
	// Source is file, http or api.
	Source string `json:"source,omitempty"`
	// Origin is the manifest's path on the node or the static pod URL.
	Origin string `json:"origin,omitempty"`
	// ConfigHash is the static pod's kubernetes.io/config.hash.
	ConfigHash string `json:"configHash,omitempty"`
}

// WhyStage is one stage of the pipeline with its verdict.
type WhyStage struct {
	// Name is one of the Stage* constants.
	Name string `json:"name"`
	// Verdict is ok, failing or unknown.
	Verdict string `json:"verdict"`
	// Message says in one line what was found, or why it is unknown.
	Message string `json:"message"`
	// Evidence are the facts the verdict rests on.
	Evidence []string `json:"evidence,omitempty"`
}
