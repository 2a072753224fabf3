package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PLEGStatus is the answer of /api/v1alpha1/pleg.
type PLEGStatus struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string `json:"nodeName"`
	// Enabled is false when the agent has no runtime endpoint.
	Enabled bool `json:"enabled"`
	// RuntimeEndpoint is the CRI socket the PLEG relists.
	RuntimeEndpoint string `json:"runtimeEndpoint,omitempty"`
	// Healthy and Message are the kubelet's verdict ("pleg was last seen
	// active ... ago; threshold is ...").
	Healthy bool   `json:"healthy"`
	Message string `json:"message,omitempty"`
	// LastError is the last relist error and ConsecutiveFailures how many
	// relists failed in a row.
	LastError           string `json:"lastError,omitempty"`
	ConsecutiveFailures int    `json:"consecutiveFailures"`
	// LastRelist is the start of the last successful relist.
	LastRelist *metav1.Time `json:"lastRelist,omitempty"`
	// Relists counts relists, RelistFailures the failed ones.
	Relists        uint64 `json:"relists"`
	RelistFailures uint64 `json:"relistFailures"`
	// RelistDuration and RelistInterval summarize the recent relists.
	RelistDuration Latency `json:"relistDuration"`
	RelistInterval Latency `json:"relistInterval"`
	// Calls has the latency of each CRI call by name.
	Calls map[string]Latency `json:"calls,omitempty"`
	// SlowestPods are the slowest pod inspections of the recent relists.
	SlowestPods []SlowPod `json:"slowestPods,omitempty"`
	// EventsSent counts events by type as the kubelet would send them;
	// EventsComputed also counts those it computes and drops or never sends.
	EventsSent     map[string]uint64 `json:"eventsSent,omitempty"`
	EventsComputed map[string]uint64 `json:"eventsComputed,omitempty"`
	// EventsDropped counts events lost to a full channel.
	EventsDropped uint64 `json:"eventsDropped"`
	// RuntimeEvents is how the agent follows the runtime's container events
	// to relist sooner (--relist-on-runtime-events): off, following, broken
	// or unsupported, RuntimeEventsError why the stream last ended, and
	// EventRelists how many relists they brought forward.
	RuntimeEvents      string `json:"runtimeEvents,omitempty"`
	RuntimeEventsError string `json:"runtimeEventsError,omitempty"`
	EventRelists       uint64 `json:"eventRelists,omitempty"`
	// Pods, RunningPods and Containers (by state) are from the last relist.
	Pods        int            `json:"pods"`
	RunningPods int            `json:"runningPods"`
	Containers  map[string]int `json:"containers,omitempty"`
}

// Latency summarizes durations in seconds.
type Latency struct {
	Count uint64  `json:"count"`
	Last  float64 `json:"lastSeconds"`
	P50   float64 `json:"p50Seconds"`
	P99   float64 `json:"p99Seconds"`
	Max   float64 `json:"maxSeconds"`
}

// SlowPod is one slow pod status inspection.
type SlowPod struct {
	UID       types.UID   `json:"uid"`
	Name      string      `json:"name"`
	Namespace string      `json:"namespace"`
	Seconds   float64     `json:"seconds"`
	Time      metav1.Time `json:"time"`
	Error     string      `json:"error,omitempty"`
}
