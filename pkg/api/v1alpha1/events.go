package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultHeartbeat is how often the agent sends a heartbeat on an idle
// event stream unless its --heartbeat says otherwise; clients allow twice
// that for a silence.
const DefaultHeartbeat = 5 * time.Second

// Event kinds on the stream.
const (
	// EventKindConfig is a notification of the merged pod configuration.
	EventKindConfig = "config"
	// EventKindPLEG is a pod lifecycle event of the PLEG.
	EventKindPLEG = "pleg"
	// EventKindBoundary marks the start of an agent process that keeps a
	// journal: the events before it are an earlier process's, and
	// Boundary says what lies between. Every event filter keeps it.
	EventKindBoundary = "boundary"
)

// Stream message types besides events.
const (
	// MessageEvent carries an event.
	MessageEvent = "event"
	// MessageHeartbeat is sent when nothing else was for a while; Seq is the
	// last sequence number the agent assigned.
	MessageHeartbeat = "heartbeat"
	// MessageGap says events From..To were evicted from the agent's buffer
	// before this client could read them.
	MessageGap = "gap"
	// MessageSnapshot carries the state at the start of a stream
	// (?snapshot=true): Snapshot holds the pods, Seq the last event they
	// include.
	MessageSnapshot = "snapshot"
	// MessageLagging says the client read too slowly and the stream ends;
	// it may resume with ?since=Seq.
	MessageLagging = "lagging"
	// MessageReset says the client resumed with the epoch of another agent
	// process (the agent restarted without a journal, or with a new one):
	// sequence numbers start again, and the
	// stream continues from the oldest event the new agent kept (after a
	// gap message when that is not event 1). Events of the old agent that
	// the client did not read are lost.
	MessageReset = "reset"
	// MessageEnd says the stream reached the Until of its query (Seq, as a
	// sequence number) and ends.
	MessageEnd = "end"
)

// StreamMessage is one line of /api/v1alpha1/events (EventsPath; its query
// is an EventQuery). A stream asked for with
// since=<seq> ahead of the agent's last sequence number, with the agent's
// epoch or none, is not opened: the answer is 400 with a Status whose
// message names the last sequence number and the epoch. With another
// epoch, the stream opens with MessageReset instead.
type StreamMessage struct {
	// Type is one of the Message* constants.
	Type string `json:"type"`
	// Epoch names the numbering of the sequence numbers: the agent
	// process's, or its journal's, which the next process continues;
	// sequence numbers are only comparable within one epoch. Resume with
	// ?since=<seq>&epoch=<epoch>.
	Epoch string `json:"epoch"`
	Event *Event `json:"event,omitempty"`
	// Seq is the sequence number the message refers to (heartbeat, lagging,
	// snapshot).
	Seq uint64 `json:"seq,omitempty"`
	// From and To bound a gap, inclusive.
	From uint64 `json:"from,omitempty"`
	To   uint64 `json:"to,omitempty"`
	// Until is the sequence number a bounded stream ends at, on the
	// heartbeat that opens it (after a reset, if any).
	Until *uint64 `json:"until,omitempty"`
	// Snapshot is the state a snapshot message carries.
	Snapshot *PodList `json:"snapshot,omitempty"`
	// Time is when the message was written.
	Time metav1.MicroTime `json:"time"`
}

// Event is one entry of the agent's ordered event sequence.
type Event struct {
	// Seq numbers the agent's events from 1, without holes.
	Seq uint64 `json:"seq"`
	// Time is when the agent published the event (config) or when the
	// relist that found it started (pleg).
	Time metav1.MicroTime `json:"time"`
	// Kind is config, pleg, boundary or input.
	Kind string `json:"kind"`
	// Boundary (boundary) is the agent start the event marks.
	Boundary *Boundary `json:"boundary,omitempty"`
	// Input (input) is what the agent took in.
	Input *Input `json:"input,omitempty"`

	// Op (config) is the notification: ADD, UPDATE, DELETE, REMOVE,
	// RECONCILE or SET; Source the source it came from; Pods the pods.
	Op     string   `json:"op,omitempty"`
	Source string   `json:"source,omitempty"`
	Pods   []PodRef `json:"pods,omitempty"`

	// PLEG events: the pod, the event type, the container or sandbox ID
	// (Data) and name, and whether the kubelet sends the event: false for
	// a type it never sends (ContainerChanged) and for an event its full
	// PLEG channel dropped.
	PodUID        types.UID `json:"podUID,omitempty"`
	PodName       string    `json:"podName,omitempty"`
	Namespace     string    `json:"namespace,omitempty"`
	Type          string    `json:"type,omitempty"`
	Data          string    `json:"data,omitempty"`
	Sandbox       bool      `json:"sandbox,omitempty"`
	ContainerName string    `json:"containerName,omitempty"`
	// Labels are the pod's labels when the agent published the event, as
	// its configuration had them (none for a pod no source configures).
	Labels       map[string]string `json:"labels,omitempty"`
	KubeletSends *bool             `json:"kubeletSends,omitempty"`
	// ExitCode is the container's exit code for ContainerDied, when known.
	ExitCode *int `json:"exitCode,omitempty"`

	// Handler is what the kubelet's sync loop does with the event (config
	// and PLEG): the handler it calls (SyncHandlerPodAdditions, ...), or
	// SyncHandlerIgnored with the reason in Ignored.
	Handler string `json:"handler,omitempty"`
	Ignored string `json:"ignored,omitempty"`
	// Removes (ContainerDied) are the IDs of the pod's exited containers
	// that the kubelet's container deletor removes on this event, newest
	// first (cleanUpContainersInPod: the older exited containers of the
	// dead one's name beyond the number the kubelet keeps). RemovesUnknown
	// says why they could not be worked out from what the agent sees;
	// neither is set when nothing is removed.
	Removes        []string `json:"removes,omitempty"`
	RemovesUnknown string   `json:"removesUnknown,omitempty"`
}

// PodRef summarizes a pod in a config event.
type PodRef struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	UID       types.UID `json:"uid"`
	// Origin is where a static pod came from, as PodInfo.Origin: the
	// manifest's path on the node, or the static pod URL with its
	// credentials masked; empty for a pod of the API server.
	Origin string `json:"origin,omitempty"`
	// Labels are the pod's labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Admission is the kubelet's admission verdict on the pod, on the
	// pods of an ADD.
	Admission *Admission `json:"admission,omitempty"`
	// Warnings are what the kubelet's decoder warned about the static
	// pod's manifest without rejecting it (see WarnedFile), on every
	// config event about the pod while its manifest has them: the kubelet
	// only logs them, and only once per process for each text.
	Warnings []string `json:"warnings,omitempty"`
}

// Boundary is an agent process's start over its journal (an event of kind
// boundary, at the time the process started).
type Boundary struct {
	// Down, when an earlier process recorded events, is when no agent
	// watched the node: from the last moment the earlier process was
	// known alive to this one's start. The kubelet went on without podsrc
	// then: what it did is not in the sequence.
	Down *TimeGap `json:"down,omitempty"`
	// PreviousStop is how the earlier process ended: StopClean, or
	// StopUnclean (killed, crashed, or the node went down), empty on the
	// journal's first start.
	PreviousStop string `json:"previousStop,omitempty"`
	// Damage, when set, says the journal was damaged and what the agent
	// did about it (the file it moved aside, the events it kept).
	Damage string `json:"damage,omitempty"`
	// Discarded, when set, says the journal held events written by an
	// agent that served pod specs in full (--expose-pod-specs), which this
	// one does not: they were dropped unserved, and a stream from before
	// this start reports them as a gap.
	Discarded string `json:"discarded,omitempty"`
	// AgentVersion and KubeletMinor are the starting agent's.
	AgentVersion string `json:"agentVersion,omitempty"`
	KubeletMinor string `json:"kubeletMinor,omitempty"`
}

// How an agent process ended (Boundary.PreviousStop).
const (
	StopClean   = "clean"
	StopUnclean = "unclean"
)

// TimeGap is a stretch of time, Start to End, nothing was recorded in.
type TimeGap struct {
	Start metav1.MicroTime `json:"start"`
	End   metav1.MicroTime `json:"end"`
}
