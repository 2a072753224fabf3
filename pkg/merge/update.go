package merge

import (
	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Op is the operation carried by an Update, on the input side (from a source)
// or on the output side (to the consumer of the merged configuration).
type Op int

const (
	// Set replaces every pod of a source (input) or carries a full snapshot
	// of all sources (output of the snapshot modes).
	Set Op = iota
	// Add introduces pods that were not known before.
	Add
	// Update changes known pods in a way that needs a sync.
	Update
	// Delete marks known pods for graceful deletion.
	Delete
	// Remove forgets pods.
	Remove
	// Reconcile reports pods whose status alone changed.
	Reconcile
)

// String returns the kubelet's upper-case name of the operation.
func (o Op) String() string {
	switch o {
	case Set:
		return v1alpha1.OpSet
	case Add:
		return v1alpha1.OpAdd
	case Update:
		return v1alpha1.OpUpdate
	case Delete:
		return v1alpha1.OpDelete
	case Remove:
		return v1alpha1.OpRemove
	case Reconcile:
		return v1alpha1.OpReconcile
	}
	return "UNKNOWN"
}

// PodUpdate is one message between a source and the merge, or between the
// merge and its consumer. Source is the name of the source the update came
// from (v1alpha1.SourceFile, v1alpha1.SourceHTTP, v1alpha1.SourceAPI).
//
// A pod in an update is immutable from then on, on both sides: a source
// hands over pods it never changes again (a cache's objects qualify, as an
// informer's already are), and the merge stores them, shares them with the
// updates it emits and never changes them either. The merge's own
// annotations go into a shallow copy of a pod's metadata, never into the
// source's pod. A consumer that needs to change an emitted pod copies it.
type PodUpdate struct {
	Op     Op
	Source string
	Pods   []*v1.Pod

	// Fingerprints, when set, has one entry per pod. A non-empty entry is the
	// source's promise that two pods it sends with the same fingerprint are
	// identical in every field, as the API server promises for one
	// resourceVersion of an object or a file source for the same manifest
	// bytes. The merge then skips comparing a pod whose fingerprint equals the
	// one it merged last for that UID. The output is the same either way.
	Fingerprints []string

	// Origins, when set, has one entry per pod: where the source has it
	// from (a static pod's manifest path, its URL with the credentials
	// masked), which the kubelet knows and only logs. The merge keeps each
	// pod's origin, the latest one its source sent, and puts it in the
	// Origins of every notification about the pod, REMOVE included, when
	// one of the notification's pods has one; otherwise Origins is nil.
	Origins []string

	// Warnings, when set, has one entry per pod: what the kubelet's
	// decoder warned about the pod's manifest without rejecting it (see
	// staticpod.Decoder), none for most. The merge keeps and passes them
	// on as Origins.
	Warnings [][]string
}
