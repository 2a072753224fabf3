package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodList is the answer of /api/v1alpha1/pods.
type PodList struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string    `json:"nodeName"`
	Items           []PodInfo `json:"items"`
}

// PodInfo is one pod as the kubelet's configuration and its PLEG see it.
// A pod the runtime runs but no source configures has an empty Source.
type PodInfo struct {
	metav1.TypeMeta `json:",inline"`
	Name            string    `json:"name"`
	Namespace       string    `json:"namespace"`
	UID             types.UID `json:"uid"`
	// NodeName is the node the pod is on. The agent leaves it empty (a
	// PodList names its node); kubectl podsrc sets it on every item of the
	// flat List it prints, so that one jsonpath fits one node or many.
	NodeName string `json:"nodeName,omitempty"`
	// Labels are the pod's labels; empty for a pod only the runtime has.
	Labels map[string]string `json:"labels,omitempty"`
	// Source is the source the pod came from (file, http, api).
	Source string `json:"source,omitempty"`
	// Origin is where a static pod came from: the manifest's path on the
	// node, or the static pod URL.
	Origin string `json:"origin,omitempty"`
	// APIReferences are the kinds of API objects a static pod refers to
	// (secret, configmap, serviceaccount, persistentvolumeclaim,
	// resourceclaim, clustertrustbundle, podcertificate, csidriver,
	// endpoints), which NodeRestriction does not let a mirror pod refer to;
	// names are left out.
	APIReferences []string `json:"apiReferences,omitempty"`
	// Static is true for pods from a file or URL; ConfigHash is their
	// kubernetes.io/config.hash.
	Static     bool   `json:"static,omitempty"`
	ConfigHash string `json:"configHash,omitempty"`
	// Mirror is true for mirror pods; ConfigMirror is the hash of the
	// static pod they mirror.
	Mirror       bool   `json:"mirror,omitempty"`
	ConfigMirror string `json:"configMirror,omitempty"`
	// KubeletUID, for a static pod, is the UID the kubelet itself gave it
	// where the node reveals it, and KubeletUIDFrom where: "mirror" (its
	// mirror pod's kubernetes.io/config.mirror) or "sandbox" (the pod UID
	// of a runtime sandbox of the pod's namespace and name, when there is
	// no mirror pod). It differs from UID when podsrc decodes the pod
	// otherwise than this kubelet (another minor, or a bug).
	KubeletUID     string `json:"kubeletUID,omitempty"`
	KubeletUIDFrom string `json:"kubeletUIDFrom,omitempty"`
	// FirstSeen is the kubelet's kubernetes.io/config.seen of the pod.
	FirstSeen string `json:"firstSeen,omitempty"`
	// Containers are the names of the containers the pod's spec runs, as
	// kubectl counts them: its containers and its sidecars (init
	// containers with restartPolicy Always), in the spec's order; empty for
	// a pod only the runtime has. RestartPolicy is the spec's.
	Containers    []string `json:"containers,omitempty"`
	RestartPolicy string   `json:"restartPolicy,omitempty"`
	// Admission is the kubelet's admission verdict on the pod when it was
	// last added; nil for a pod only the runtime has.
	Admission *Admission `json:"admission,omitempty"`
	// Runtime is what the PLEG last saw of the pod; nil when the runtime
	// has nothing of it (or the PLEG is off).
	Runtime *RuntimePod `json:"runtime,omitempty"`
	// Pod is the merged pod, only on /api/v1alpha1/pods/{uid}: by default
	// a projection that holds only an allowlist of its fields (redact.Pod
	// lists them), in full with the agent's --expose-pod-specs.
	Pod *corev1.Pod `json:"pod,omitempty"`
}

// States of RuntimeContainer.State (the runtime's container states) and
// of RuntimePod.SandboxState.
const (
	ContainerCreated = "created"
	ContainerRunning = "running"
	ContainerExited  = "exited"
	ContainerUnknown = "unknown"

	SandboxReady    = "ready"
	SandboxNotReady = "notready"
)

// RuntimePod is the container runtime's view of a pod.
type RuntimePod struct {
	// SandboxState is the state of the newest sandbox (SANDBOX_READY as
	// "ready", SANDBOX_NOTREADY as "notready", anything else "unknown");
	// SandboxID its ID.
	SandboxID    string             `json:"sandboxID,omitempty"`
	SandboxState string             `json:"sandboxState,omitempty"`
	IPs          []string           `json:"ips,omitempty"`
	Containers   []RuntimeContainer `json:"containers,omitempty"`
	// Error is set when the PLEG's last inspection of the pod failed.
	Error string `json:"error,omitempty"`
}

// RuntimeContainer is one container the runtime has for a pod.
type RuntimeContainer struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	State        string       `json:"state"`
	Image        string       `json:"image,omitempty"`
	RestartCount int          `json:"restartCount"`
	ExitCode     int          `json:"exitCode"`
	Reason       string       `json:"reason,omitempty"`
	StartedAt    *metav1.Time `json:"startedAt,omitempty"`
	FinishedAt   *metav1.Time `json:"finishedAt,omitempty"`
}
