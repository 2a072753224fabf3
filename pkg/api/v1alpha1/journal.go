package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// States of the agent's journal (JournalStatus.State).
const (
	// JournalOn says the agent keeps its events in its journal.
	JournalOn = "on"
	// JournalOff says the agent was told to keep none (--journal-dir="").
	JournalOff = "off"
	// JournalFailed says the journal could not be opened: the agent
	// serves without one, and its events will not outlive it.
	JournalFailed = "failed"
)

// JournalStatus is the state of the agent's journal on the node, where its
// events outlive it.
type JournalStatus struct {
	// State is JournalOn, JournalOff or JournalFailed.
	State string `json:"state"`
	// Error says why a failed journal could not be opened.
	Error string `json:"error,omitempty"`
	// Events and Bytes are what the journal holds: events, and the bytes
	// of their records; Oldest is the time of its oldest event.
	Events int          `json:"events"`
	Bytes  int64        `json:"bytes"`
	Oldest *metav1.Time `json:"oldest,omitempty"`
	// MaxBytes and MaxAge are its bounds (--journal-max-bytes and
	// --journal-max-age).
	MaxBytes int64           `json:"maxBytes,omitempty"`
	MaxAge   metav1.Duration `json:"maxAge,omitempty"`
	// Dropped counts the events the journal dropped, by bound: "size",
	// "age" or "backlog".
	Dropped map[string]uint64 `json:"dropped,omitempty"`
	// WriteErrors counts the journal's commits that failed; their events
	// were lost.
	WriteErrors uint64 `json:"writeErrors,omitempty"`
}
