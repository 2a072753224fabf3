package pleg

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Names of the CRI calls a relist makes, as an Observer is told of them.
const (
	CallListPodSandbox   = "ListPodSandbox"
	CallListContainers   = "ListContainers"
	CallPodSandboxStatus = "PodSandboxStatus"
	CallContainerStatus  = "ContainerStatus"
)

// Outcomes of a computed event, in ComputedEvent.Outcome.
const (
	// OutcomeSent: the event went on the kubelet's channel.
	OutcomeSent = "sent"
	// OutcomeDropped: the kubelet's channel was full; the kubelet drops it
	// too.
	OutcomeDropped = "dropped"
	// OutcomeNotSent: the kubelet computes but never sends this type.
	OutcomeNotSent = "not-sent-by-kubelet"
	// OutcomeInspectionFailed: the pod's status could not be read; the
	// kubelet discards the events and computes them again next relist.
	OutcomeInspectionFailed = "discarded-inspection-failed"
)

// ComputedEvent is one computed event and what became of it.
type ComputedEvent struct {
	PodLifecycleEvent
	Outcome string
	// Cached is the pod's cache entry as the relist that computed the
	// event left it, the status the kubelet's sync loop reads when it
	// handles the event; nil when the runtime no longer has the pod. It is
	// shared with the cache: handlers must not modify it.
	Cached *CachedPod
}

// RelistSummary describes one relist.
type RelistSummary struct {
	Seq                   uint64
	Start                 time.Time
	DurationSeconds       float64
	IntervalSeconds       float64
	ListSandboxesSeconds  float64
	ListContainersSeconds float64
	Pods                  int
	Sandboxes             int
	Containers            int
	Events                int
	Inspected             int
	InspectionFailures    int
	Error                 string
}

// RelistCounts are the objects one successful relist listed.
type RelistCounts struct {
	// Pods and Sandboxes count what was listed, RunningPods the pods with
	// a running sandbox.
	Pods, Sandboxes, RunningPods int
	// Containers counts the containers by state.
	Created, Running, Exited, Unknown int
}

// PodInspection is the status inspection of one pod during one relist.
type PodInspection struct {
	Relist          uint64
	Time            time.Time
	PodID           types.UID
	Name            string
	Namespace       string
	DurationSeconds float64
	Calls           int
	Error           string
}
