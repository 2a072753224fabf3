package merge

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
)

// change is what merging one incoming pod into its stored copy amounts to.
type change int

const (
	unchanged change = iota
	needsUpdate
	needsReconcile
	needsDelete
)

// differsSemantically reports whether the incoming pod changes anything the
// kubelet acts on: spec, labels, deletion timestamp and grace period, and
// annotations other than the kubelet-local ones. The comparisons are
// reflect.DeepEqual's, as in the kubelet: nil and empty labels differ. Spec
// and status are compared through pointers, which DeepEqual follows to the
// same result, so that no copy of them is boxed for the call; and parts
// that a stored pod shares with the incoming one compare at once.
func differsSemantically(stored, incoming *v1.Pod) bool {
	return !reflect.DeepEqual(&stored.Spec, &incoming.Spec) ||
		!labelsEqual(stored.Labels, incoming.Labels) ||
		!reflect.DeepEqual(stored.DeletionTimestamp, incoming.DeletionTimestamp) ||
		!reflect.DeepEqual(stored.DeletionGracePeriodSeconds, incoming.DeletionGracePeriodSeconds) ||
		!annotationsEqual(stored.Annotations, incoming.Annotations)
}

// labelsEqual is reflect.DeepEqual for two label maps, without reflection:
// nil and empty differ, and so does any entry.
func labelsEqual(stored, incoming map[string]string) bool {
	if (stored == nil) != (incoming == nil) || len(stored) != len(incoming) {
		return false
	}
	for k, v := range stored {
		if iv, ok := incoming[k]; !ok || iv != v {
			return false
		}
	}
	return true
}

// apply merges incoming into stored and says what kind of change it was,
// with the pod to store from now on; neither pod is changed. A status-only
// change takes the incoming status and asks for a reconcile; a semantic
// change takes spec, labels, deletion fields, status and the non-local
// annotations (and, with UpdatesGeneration, the generation), keeps the stored
// local annotations (first-seen time, source, mirror) and the rest of the
// stored metadata, and is a delete when the pod carries a deletion
// timestamp.
func (s Semantics) apply(stored, incoming *v1.Pod) (change, *v1.Pod) {
	semantic := differsSemantically(stored, incoming)
	if !semantic && reflect.DeepEqual(&stored.Status, &incoming.Status) {
		return unchanged, stored
	}
	// On a status-only change, spec, labels and deletion fields are deeply
	// equal: taking the incoming ones changes nothing but lets the stored
	// pod share them with the source's current object, not an older one.
	out := *stored
	out.Spec = incoming.Spec
	out.Labels = incoming.Labels
	out.DeletionTimestamp = incoming.DeletionTimestamp
	out.DeletionGracePeriodSeconds = incoming.DeletionGracePeriodSeconds
	out.Status = incoming.Status
	switch {
	case !semantic:
		return needsReconcile, &out
	case s == UpdatesGeneration:
		out.Generation = incoming.Generation
	}
	out.Annotations = mergedAnnotations(stored.Annotations, incoming.Annotations)
	if incoming.DeletionTimestamp != nil {
		return needsDelete, &out
	}
	return needsUpdate, &out
}
