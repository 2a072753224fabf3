package syncloop

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// Why the kubelet's sync loop ignores an event (v1alpha1.Event.Ignored).
const (
	ignoredNotSyncWorthy   = "ContainerRemoved is not sync-worthy"
	ignoredNotInPodManager = "pod not in the pod manager"
	ignoredDropped         = "the kubelet's PLEG channel was full: the event was dropped"
	// ignoredSetUnsupported and ignoredSetInvalid are the kubelet's own
	// log messages for a SET (see Semantics).
	ignoredSetUnsupported = "Kubelet does not support snapshot update"
	ignoredSetInvalid     = "Invalid operation type received"
)

// minDeadContainerInPod is the kubelet's floor of the exited containers
// of a name its container deletor keeps.
const minDeadContainerInPod = 1

// Dispatcher is the dispatch of the kubelet's syncLoopIteration (k8s.io/kubernetes
// pkg/kubelet/kubelet.go), the same in every minor podsrc reproduces but for
// the words of a SET (Semantics): a config notification goes to the handler of its op; a PLEG event
// goes to HandlePodSyncs unless it is a ContainerRemoved or its pod is not
// in the pod manager, and a ContainerDied also has cleanUpContainersInPod
// remove the pod's older exited containers (pod_container_deletor.go, the
// same in every minor).
type Dispatcher struct {
	// setIgnored is why the sync loop ignores a SET, in its minor's words.
	setIgnored string
	// keep is how many exited containers of a name the container deletor
	// keeps: max(the kubelet's --maximum-dead-containers-per-container,
	// minDeadContainerInPod).
	keep int
}

// NewDispatcher returns the sync loop of a kubelet minor podsrc reproduces,
// by its semantics (kubeletsemantics.Of); maxDeadPerContainer is its
// --maximum-dead-containers-per-container.
func NewDispatcher(sem Semantics, maxDeadPerContainer int) Dispatcher {
	return Dispatcher{setIgnored: sem.setIgnored(), keep: max(maxDeadPerContainer, minDeadContainerInPod)}
}

// Dispatch is what the sync loop does with one event; it sets the event's
// fields of the same names.
type Dispatch struct {
	handler, ignored string
	removes          []string
	removesUnknown   string
}

// SetOn sets the dispatch's fields of e.
func (d Dispatch) SetOn(e *v1alpha1.Event) {
	e.Handler, e.Ignored, e.Removes, e.RemovesUnknown = d.handler, d.ignored, d.removes, d.removesUnknown
}

// Config returns the handler of a config notification.
func (s Dispatcher) Config(op merge.Op) Dispatch {
	switch op {
	case merge.Add:
		return Dispatch{handler: v1alpha1.SyncHandlerPodAdditions}
	case merge.Update, merge.Delete:
		// DELETE is treated as an UPDATE because of graceful deletion.
		return Dispatch{handler: v1alpha1.SyncHandlerPodUpdates}
	case merge.Remove:
		return Dispatch{handler: v1alpha1.SyncHandlerPodRemoves}
	case merge.Reconcile:
		return Dispatch{handler: v1alpha1.SyncHandlerPodReconcile}
	}
	return Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: s.setIgnored}
}

// PLEG returns the dispatch of a PLEG event. pod is the pod the kubelet's
// pod manager holds under the event's UID, nil for none; the event's
// Cached is the pod's status as the relist that computed it left the
// PLEG's cache, as the kubelet's is when its sync loop cleans up after a
// ContainerDied.
func (s Dispatcher) PLEG(r pleg.ComputedEvent, pod *v1.Pod) Dispatch {
	switch {
	case !r.KubeletSends:
		return Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: fmt.Sprintf("the kubelet's PLEG does not send %s", r.Type)}
	case r.Outcome == pleg.OutcomeDropped:
		return Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: ignoredDropped}
	}
	var d Dispatch
	switch {
	case r.Type == pleg.ContainerRemoved:
		d = Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: ignoredNotSyncWorthy}
	case pod == nil:
		d = Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: ignoredNotInPodManager}
	default:
		d = Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}
	}
	if r.Type == pleg.ContainerDied {
		d.removes, d.removesUnknown = s.cleanUp(r.Data, pod, r.Cached)
	}
	return d
}

// cleanUp returns the containers cleanUpContainersInPod removes after the
// container died: none when the kubelet's cache has an error for the pod
// (or nothing of it); all its exited containers when the pod's content
// should be removed (the pod worker evicted it, or it is deleted and
// terminated, or the pod worker does not know it); else the exited
// containers of the dead one's name beyond the number kept, the newest
// kept. When the pod worker's state decides and the agent cannot see it,
// unknown says why, unless both answers are the same.
func (s Dispatcher) cleanUp(died string, pod *v1.Pod, cached *pleg.CachedPod) (removes []string, unknown string) {
	if cached == nil || cached.Error != "" || cached.Status == nil {
		return nil, ""
	}
	st := cached.Status
	var why string
	switch {
	case pod == nil:
		why = "the pod is not in the pod manager"
	case pod.DeletionTimestamp != nil:
		why = "the pod is being deleted"
	case pod.Status.Reason == "Evicted":
		why = "the pod was evicted"
	default:
		return containersToDelete(died, st, s.keep), ""
	}
	all, some := containersToDelete("", st, 0), containersToDelete(died, st, s.keep)
	if slices.Equal(all, some) {
		return all, ""
	}
	return nil, why + ": the kubelet removes all its exited containers if its pod worker has terminated the pod, else the older ones of the container's name, and the agent cannot see which"
}

// containersToDelete is the kubelet's getContainersToDeleteInPod: the
// exited containers of the pod with the name of the container filter (all
// with filter ""; none when the pod has no such container) beyond the
// newest keep, newest first.
func containersToDelete(filter string, st *pleg.PodStatus, keep int) []string {
	var matched *pleg.ContainerStatus
	if filter != "" {
		i := slices.IndexFunc(st.Containers, func(c pleg.ContainerStatus) bool { return c.ID == filter })
		if i < 0 {
			return nil
		}
		matched = &st.Containers[i]
	}
	var candidates []pleg.ContainerStatus
	for _, c := range st.Containers {
		if c.State == pleg.StateExited && (matched == nil || c.Name == matched.Name) {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) <= keep {
		return nil
	}
	slices.SortStableFunc(candidates, func(a, b pleg.ContainerStatus) int { return b.CreatedAt.Compare(a.CreatedAt) })
	var ids []string
	for _, c := range candidates[keep:] {
		ids = append(ids, c.ID)
	}
	return ids
}
