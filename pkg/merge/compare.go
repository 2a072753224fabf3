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
// reflect.DeepEqual's, as in the kubelet: nil and empty labels differ.
func differsSemantically(stored, incoming *v1.Pod) bool {
	return !reflect.DeepEqual(stored.Spec, incoming.Spec) ||
		!reflect.DeepEqual(stored.Labels, incoming.Labels) ||
		!reflect.DeepEqual(stored.DeletionTimestamp, incoming.DeletionTimestamp) ||
		!reflect.DeepEqual(stored.DeletionGracePeriodSeconds, incoming.DeletionGracePeriodSeconds) ||
		!annotationsEqual(stored.Annotations, incoming.Annotations)
}

// apply merges incoming into stored in place and says what kind of change it
// was. A status-only change replaces the status and asks for a reconcile; a
// semantic change replaces spec, labels, deletion fields, status and the
// non-local annotations (and, with KubeletV136, the generation), keeps the
// first-seen time, and is a delete when the pod carries a deletion timestamp.
func (s Semantics) apply(stored, incoming *v1.Pod) change {
	if !differsSemantically(stored, incoming) {
		if reflect.DeepEqual(stored.Status, incoming.Status) {
			return unchanged
		}
		stored.Status = incoming.Status
		return needsReconcile
	}

	incoming.Annotations[ConfigSeenAnnotation] = stored.Annotations[ConfigSeenAnnotation]
	stored.Spec = incoming.Spec
	stored.Labels = incoming.Labels
	stored.DeletionTimestamp = incoming.DeletionTimestamp
	stored.DeletionGracePeriodSeconds = incoming.DeletionGracePeriodSeconds
	stored.Status = incoming.Status
	if s == KubeletV136 {
		stored.Generation = incoming.Generation
	}
	stored.Annotations = mergedAnnotations(stored.Annotations, incoming.Annotations)

	if incoming.DeletionTimestamp != nil {
		return needsDelete
	}
	return needsUpdate
}
