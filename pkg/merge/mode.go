package merge

import "fmt"

// Mode says how the merge notifies its consumer of changes.
type Mode int

const (
	// Incremental emits REMOVE, ADD, UPDATE, DELETE and RECONCILE updates,
	// and an empty ADD the first time a source sends a SET that changes
	// nothing else. It is the only mode today's kubelet has.
	Incremental Mode = iota
	// SnapshotAndUpdates emits a SET snapshot of every source's pods when
	// pods were added or removed or a source was seen for the first time,
	// followed by UPDATE and DELETE updates.
	SnapshotAndUpdates
	// Snapshot emits a SET snapshot of every source's pods whenever anything
	// but status changed, or a source was seen for the first time.
	Snapshot
)

// String returns the mode's name as the agent's --mode flag spells it.
func (m Mode) String() string {
	switch m {
	case Incremental:
		return "incremental"
	case SnapshotAndUpdates:
		return "snapshot-and-updates"
	case Snapshot:
		return "snapshot"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode turns a mode's name into the Mode.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{Incremental, SnapshotAndUpdates, Snapshot} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown notification mode %q (want incremental, snapshot-and-updates or snapshot)", s)
}

// Semantics selects the merge behaviour reproduced where kubelet versions
// differ on the same input. pkg/kubeletsemantics says which a kubelet minor
// has.
type Semantics int

const (
	// UpdatesGeneration is the merge in which an update also copies
	// metadata.generation into the stored pod (kubelets v1.33 on). It is
	// the default. (v1.36 dropped the notification modes and the input
	// operations other than SET; the kubelets before it still have them,
	// and the merge offers them whatever the semantics.)
	UpdatesGeneration Semantics = iota
	// KeepsGeneration is the merge that keeps the generation the pod was
	// first seen with (kubelet v1.27, of the historical traces).
	KeepsGeneration
)

// String returns the behaviour the semantics follow, in words.
func (s Semantics) String() string {
	switch s {
	case UpdatesGeneration:
		return "updates-generation"
	case KeepsGeneration:
		return "keeps-generation"
	}
	return fmt.Sprintf("Semantics(%d)", int(s))
}
