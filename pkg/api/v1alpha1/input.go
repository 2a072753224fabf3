package v1alpha1

import (
	v1 "k8s.io/api/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// EventKindInput is what the agent took in: its settings at start, an
// update a source handed to the merge, or a change of the Node. The
// journal keeps these with the other events, in their order, so that a
// recording can be replayed through the kubelet's code (podsrc-agent
// replay). A stream carries them only when its query asks for the kind
// by name (kind=input): no other filter, and no filter at all, lets them
// through.
const EventKindInput = "input"

// RedactedDigestAnnotation is the annotation an input pod recorded
// without --expose-pod-specs carries for its whole spec and annotations,
// of which it keeps only a list (see Input.Redacted): a keyed digest, the
// key the agent process's own and never served. Two pods of one agent
// process have the same digest exactly when their specs and annotations
// are the same, so that the merge tells their changes apart as the
// kubelet's did.
const RedactedDigestAnnotation = "podsrc.io/redacted-digest"

// RedactedDigestCondition is the condition an input pod recorded without
// --expose-pod-specs carries for its whole status: its reason is a digest
// of it, as RedactedDigestAnnotation's value is of the spec, so that the
// merge tells status changes apart as the kubelet's did.
const RedactedDigestCondition = "podsrc.io/RedactedDigest"

// Input is an event of kind input: exactly one of Settings, Update, Node,
// Relist and Inspection is set, or NodeGone.
type Input struct {
	// Settings are the agent process's settings that decide what the
	// merge, the sync loop and the admit handlers make of the inputs. It is
	// the first input of every agent process.
	Settings *InputSettings `json:"settings,omitempty"`
	// Update is an update a source handed to the merge, in the order the
	// merge took them.
	Update *InputUpdate `json:"update,omitempty"`
	// Node is the kubelet's Node object as the admit handlers were given
	// it (without its images, which none reads, nor its managed fields).
	Node *v1.Node `json:"node,omitempty"`
	// NodeGone says the Node object was deleted.
	NodeGone bool `json:"nodeGone,omitempty"`
	// Relist is what the container runtime listed for a relist of the
	// PLEG, before the relist's first inspection or event. A relist that
	// inspects nothing and makes no event changes nothing the PLEG keeps,
	// and is not recorded.
	Relist *RelistInput `json:"relist,omitempty"`
	// Inspection is the runtime's answer to one inspection of that
	// relist, in the order the PLEG asked.
	Inspection *InspectionInput `json:"inspection,omitempty"`
	// Redacted says the pods were recorded without --expose-pod-specs:
	// each holds only the fields on a list (redact.InputPod: those the
	// agent serves, and those the kubelet's merge and admit handlers judge
	// by, never environment, commands, volume settings, other annotations
	// or messages), and RedactedDigestAnnotation and
	// RedactedDigestCondition stand for the rest.
	Redacted bool `json:"redacted,omitempty"`
}

// InputSettings are an agent process's settings that replaying its
// inputs needs.
type InputSettings struct {
	// Sources are the sources the merge had registered, sorted.
	Sources []string `json:"sources"`
	// Mode is the merge's notification mode.
	Mode string `json:"mode"`
	// FeatureGates are the kubelet feature gates the agent set, as the
	// kubelet's configuration and --feature-gates gave them.
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// MaxDeadContainersPerContainer is the kubelet's, which its container
	// deletor keeps.
	MaxDeadContainersPerContainer int `json:"maxDeadContainersPerContainer"`
	// Admission is what the admit handlers were built with; nil when the
	// agent judged no admission.
	Admission *AdmissionSettings `json:"admission,omitempty"`
	// AdmissionMessages says the kubelet's messages on the pods it
	// rejected were quoted whole (--expose-pod-specs).
	AdmissionMessages bool `json:"admissionMessages,omitempty"`
	// PLEG says the agent ran the PLEG; PLEGChannelCapacity is the
	// kubelet's PLEG channel capacity it reproduced.
	PLEG                bool `json:"pleg,omitempty"`
	PLEGChannelCapacity int  `json:"plegChannelCapacity,omitempty"`
}

// RelistInput is the container runtime's listing for one relist, with
// only what the PLEG reads: the sandboxes' IDs, metadata, states and
// creation times; the containers' too, with their sandbox, image, the
// kubelet's io.kubernetes.* labels and its restart count annotation.
type RelistInput struct {
	Sandboxes  []*runtimeapi.PodSandbox `json:"sandboxes"`
	Containers []*runtimeapi.Container  `json:"containers"`
}

// InspectionInput is the runtime's answer to one PodSandboxStatus
// (SandboxID) or ContainerStatus (ContainerID) call: its status, with only
// what the PLEG reads (RelistInput's fields, the sandbox's network, the
// container's start and finish times, exit code, image reference and
// reason; the container's message only with --expose-pod-specs), or the
// call's error, NotFound when the runtime no longer had the object.
type InspectionInput struct {
	SandboxID   string                       `json:"sandboxID,omitempty"`
	ContainerID string                       `json:"containerID,omitempty"`
	Sandbox     *runtimeapi.PodSandboxStatus `json:"sandbox,omitempty"`
	Container   *runtimeapi.ContainerStatus  `json:"container,omitempty"`
	Error       string                       `json:"error,omitempty"`
	NotFound    bool                         `json:"notFound,omitempty"`
}

// AdmissionSettings are the kubelet's settings its admit handlers judged
// by, as the agent knew them.
type AdmissionSettings struct {
	AdmitHandlers         []string `json:"admitHandlers,omitempty"`
	AllowedUnsafeSysctls  []string `json:"allowedUnsafeSysctls,omitempty"`
	NoKubeletConfig       bool     `json:"noKubeletConfig,omitempty"`
	CPUManagerPolicy      string   `json:"cpuManagerPolicy,omitempty"`
	MemoryManagerPolicy   string   `json:"memoryManagerPolicy,omitempty"`
	TopologyManagerPolicy string   `json:"topologyManagerPolicy,omitempty"`
	AppArmorEnabled       *bool    `json:"appArmorEnabled,omitempty"`
	GracefulShutdown      bool     `json:"gracefulShutdown,omitempty"`
}

// InputUpdate is one update a source handed to the merge.
type InputUpdate struct {
	// Source is the source's name, Op the update's operation (SET, ADD,
	// UPDATE, DELETE, REMOVE).
	Source string `json:"source"`
	Op     string `json:"op"`
	// Pods are the update's pods. A nil pod is one its source sent in its
	// previous update recorded, with the same fingerprint: the same pod.
	Pods []*v1.Pod `json:"pods"`
	// Fingerprints, when set, has one entry per pod: the source's promise
	// that two pods of it with the same fingerprint are the same pod
	// (merge.PodUpdate.Fingerprints), as a digest keyed by the agent
	// process; "" for a pod the source gave none.
	Fingerprints []string `json:"fingerprints,omitempty"`
	// Origins and Warnings, when set, have one entry per pod: where the
	// source has it from (PodRef.Origin), and what the kubelet's decoder
	// warned about its manifest (PodRef.Warnings).
	Origins  []string   `json:"origins,omitempty"`
	Warnings [][]string `json:"warnings,omitempty"`
}
