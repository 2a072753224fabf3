// Package pleg reimplements the kubelet's generic pod lifecycle event
// generator (PLEG) against a node's CRI runtime, and tells an Observer what
// the kubelet only hints at through "PLEG is not healthy": relist timings,
// slow pods, runtime errors and every event it computed. The statistics
// themselves are kept beside it, in package plegstats.
package pleg

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// EventType is the kind of a pod lifecycle event; the values are the
// kubelet's.
type EventType string

const (
	// ContainerStarted says a container or sandbox is now running.
	ContainerStarted EventType = v1alpha1.PLEGContainerStarted
	// ContainerDied says a container or sandbox is now exited (or vanished
	// without having been seen exited).
	ContainerDied EventType = v1alpha1.PLEGContainerDied
	// ContainerRemoved says a container or sandbox is gone from the runtime.
	ContainerRemoved EventType = v1alpha1.PLEGContainerRemoved
	// PodSync asks for a pod sync after a reinspection that found no change.
	PodSync EventType = v1alpha1.PLEGPodSync
	// ContainerChanged says a container or sandbox went to an unknown (or
	// created) state. The PLEG computes it but the kubelet never sends it.
	ContainerChanged EventType = v1alpha1.PLEGContainerChanged
)

// KubeletSends reports whether the kubelet puts events of type t on its PLEG
// channel.
func (t EventType) KubeletSends() bool { return t != ContainerChanged }

// PodLifecycleEvent is one change the PLEG observed in a pod.
type PodLifecycleEvent struct {
	// ID is the pod UID.
	ID types.UID
	// Type is the kind of change.
	Type EventType
	// Data is the container or sandbox ID the event is about; empty for
	// PodSync.
	Data string
	// KubeletSends is false for events the kubelet computes but never sends
	// (ContainerChanged).
	KubeletSends bool
	// Sandbox is true when Data is a sandbox ID.
	Sandbox bool
	// PodName and PodNamespace name the pod as the runtime labels it.
	PodName      string
	PodNamespace string
	// ContainerName is the container's name in the pod spec, if known.
	ContainerName string
	// ExitCode is the exit code of a container that died, as the
	// inspection that found the death read it; nil otherwise.
	ExitCode *int
	// Seq numbers the events computed by one PLEG, from 1.
	Seq uint64
	// Relist is the sequence number of the relist that computed the event.
	Relist uint64
	// Time is the start of that relist.
	Time time.Time
}
