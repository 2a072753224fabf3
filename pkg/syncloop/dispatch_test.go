package syncloop

import (
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// TestSyncLoopConfig checks each notification's handler in every minor:
// only the words of an ignored SET differ.
func TestSyncLoopConfig(t *testing.T) {
	handlers := map[merge.Op]string{
		merge.Add: v1alpha1.SyncHandlerPodAdditions, merge.Update: v1alpha1.SyncHandlerPodUpdates, merge.Delete: v1alpha1.SyncHandlerPodUpdates,
		merge.Remove: v1alpha1.SyncHandlerPodRemoves, merge.Reconcile: v1alpha1.SyncHandlerPodReconcile, merge.Set: v1alpha1.SyncHandlerIgnored,
	}
	tests := []struct {
		sem Semantics
		set string
	}{
		{SetUnsupported, "Kubelet does not support snapshot update"},
		{SetInvalid, "Invalid operation type received"},
	}
	for _, tt := range tests {
		t.Run(tt.sem.String(), func(t *testing.T) {
			s := NewDispatcher(tt.sem, 1)
			for op, want := range handlers {
				d := s.Config(op)
				wantIgnored := ""
				if op == merge.Set {
					wantIgnored = tt.set
				}
				if d.handler != want || d.ignored != wantIgnored {
					t.Errorf("%s: %+v, want handler %s ignored %q", op, d, want, wantIgnored)
				}
			}
		})
	}
}

// TestSyncLoopKeep checks the number of exited containers kept, with the
// kubelet's floor of one.
func TestSyncLoopKeep(t *testing.T) {
	for flag, want := range map[int]int{-1: 1, 0: 1, 1: 1, 3: 3} {
		s := NewDispatcher(SetInvalid, flag)
		if s.keep != want {
			t.Errorf("--maximum-dead-containers-per-container=%d keeps %d, want %d", flag, s.keep, want)
		}
	}
}

// TestSyncLoopPLEG checks the dispatch of PLEG events and the containers a
// ContainerDied has the container deletor remove.
func TestSyncLoopPLEG(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctr := func(id, name string, state pleg.ContainerState, age int) pleg.ContainerStatus {
		return pleg.ContainerStatus{ID: id, Name: name, State: state, CreatedAt: t0.Add(-time.Duration(age) * time.Minute)}
	}
	// app died three times (a1 just now), sidecar once and runs again.
	restarting := &pleg.CachedPod{ID: "uid-1", Status: &pleg.PodStatus{ID: "uid-1", Containers: []pleg.ContainerStatus{
		ctr("a1", "app", pleg.StateExited, 1), ctr("s2", "sidecar", pleg.StateRunning, 2), ctr("a2", "app", pleg.StateExited, 3),
		ctr("s1", "sidecar", pleg.StateExited, 4), ctr("a3", "app", pleg.StateExited, 5),
	}}}
	// The containers in the runtime's order, not by creation.
	shuffled := &pleg.CachedPod{ID: "uid-1", Status: &pleg.PodStatus{ID: "uid-1", Containers: []pleg.ContainerStatus{
		ctr("a3", "app", pleg.StateExited, 5), ctr("a1", "app", pleg.StateExited, 1), ctr("a2", "app", pleg.StateExited, 3),
	}}}
	// One exited container: removing all removes it too.
	single := &pleg.CachedPod{ID: "uid-1", Status: &pleg.PodStatus{ID: "uid-1", Containers: []pleg.ContainerStatus{
		ctr("a1", "app", pleg.StateExited, 1), ctr("s1", "sidecar", pleg.StateRunning, 2),
	}}}
	// No exited container: nothing to remove whatever the pod worker.
	running := &pleg.CachedPod{ID: "uid-1", Status: &pleg.PodStatus{ID: "uid-1", Containers: []pleg.ContainerStatus{
		ctr("a1", "app", pleg.StateRunning, 1), ctr("s1", "sidecar", pleg.StateRunning, 2),
	}}}
	failed := &pleg.CachedPod{ID: "uid-1", Error: "rpc error", Status: restarting.Status}

	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "uid-1", Name: "web", Namespace: "default"}}
	deleting := pod.DeepCopy()
	now := metav1.NewTime(t0)
	deleting.DeletionTimestamp = &now
	evicted := pod.DeepCopy()
	evicted.Status.Reason = "Evicted"

	event := func(typ pleg.EventType, data string) pleg.ComputedEvent {
		return pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{ID: "uid-1", Type: typ, Data: data, KubeletSends: typ.KubeletSends()}, Outcome: pleg.OutcomeSent}
	}
	dropped := event(pleg.ContainerDied, "a1")
	dropped.Outcome = pleg.OutcomeDropped
	sandboxDied := event(pleg.ContainerDied, "sandbox-1")
	sandboxDied.Sandbox = true

	const unknownPrefix = "the kubelet removes all its exited containers if its pod worker has terminated the pod"
	tests := []struct {
		name   string
		keep   int
		ev     pleg.ComputedEvent
		pod    *v1.Pod
		cached *pleg.CachedPod
		want   Dispatch
		// unknown is the start of removesUnknown, when set.
		unknown string
	}{
		{name: "started", ev: event(pleg.ContainerStarted, "a1"), pod: pod, cached: restarting, want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "pod sync", ev: event(pleg.PodSync, ""), pod: pod, cached: restarting, want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "removed is not sync-worthy", ev: event(pleg.ContainerRemoved, "a4"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "ContainerRemoved is not sync-worthy"}},
		{name: "removed of a pod not in the pod manager", ev: event(pleg.ContainerRemoved, "a4"), cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "ContainerRemoved is not sync-worthy"}},
		{name: "started, pod not in the pod manager", ev: event(pleg.ContainerStarted, "a1"), cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "pod not in the pod manager"}},
		{name: "changed is never sent", ev: event(pleg.ContainerChanged, "a1"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "the kubelet's PLEG does not send ContainerChanged"}},
		{name: "a dropped death removes nothing", ev: dropped, pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "the kubelet's PLEG channel was full: the event was dropped"}},

		{name: "died: the older of its name beyond one", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs, removes: []string{"a2", "a3"}}},
		{name: "died: keep two", keep: 2, ev: event(pleg.ContainerDied, "a1"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs, removes: []string{"a3"}}},
		{name: "died: keep three, nothing", keep: 3, ev: event(pleg.ContainerDied, "a1"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: the other name's exited container alone", keep: 1, ev: event(pleg.ContainerDied, "s1"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: by creation time, not the runtime's order", keep: 1, ev: event(pleg.ContainerDied, "a2"), pod: pod, cached: shuffled,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs, removes: []string{"a2", "a3"}}},
		{name: "died: a container the cache does not have", keep: 1, ev: event(pleg.ContainerDied, "gone"), pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: a sandbox is no container", keep: 1, ev: sandboxDied, pod: pod, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: the cache has an error", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: pod, cached: failed,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: the cache has nothing", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: pod,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: pod not in the pod manager", keep: 1, ev: event(pleg.ContainerDied, "a1"), cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "pod not in the pod manager"}, unknown: "the pod is not in the pod manager: " + unknownPrefix},
		{name: "died: pod being deleted", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: deleting, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}, unknown: "the pod is being deleted: " + unknownPrefix},
		{name: "died: pod evicted", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: evicted, cached: restarting,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}, unknown: "the pod was evicted: " + unknownPrefix},
		{name: "died: deleted, its one exited container is removed or kept", keep: 1, ev: event(pleg.ContainerDied, "a1"), pod: deleting, cached: single,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}, unknown: "the pod is being deleted: " + unknownPrefix},
		{name: "died: a deleted pod's sandbox, no exited container: nothing either way", keep: 1, ev: sandboxDied, pod: deleting, cached: running,
			want: Dispatch{handler: v1alpha1.SyncHandlerPodSyncs}},
		{name: "died: a removed pod's sandbox, no exited container: nothing either way", keep: 1, ev: sandboxDied, cached: running,
			want: Dispatch{handler: v1alpha1.SyncHandlerIgnored, ignored: "pod not in the pod manager"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Dispatcher{keep: tt.keep}
			ev := tt.ev
			ev.Cached = tt.cached
			got := s.PLEG(ev, tt.pod)
			unknown := got.removesUnknown
			got.removesUnknown = ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tt.unknown == "" && unknown != "" || !strings.HasPrefix(unknown, tt.unknown) {
				t.Errorf("removes unknown %q, want %q", unknown, tt.unknown)
			}
		})
	}
}
