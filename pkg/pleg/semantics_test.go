package pleg

import (
	"context"
	"reflect"
	"testing"
)

// TestSemanticsReinspection replays the same runtime states with each
// minor's semantics: a change whose inspection fails, then either the old
// state again (v1.36 and v1.37 send PodSync, v1.33-v1.35 nothing) or the pod gone
// while its status error is still injected (no status call is made, so the
// removal is reported as usual).
func TestSemanticsReinspection(t *testing.T) {
	running := tracePod{ID: "pod-1", Name: "web", Namespace: "default",
		Sandboxes:  []traceObject{{ID: "s1", State: "running"}},
		Containers: []traceObject{{ID: "c1", Name: "app", State: "running"}}}
	exited := running
	exited.Containers = []traceObject{{ID: "c1", Name: "app", State: "exited"}}
	started := []traceEvent{ev("pod-1", ContainerStarted, "c1"), ev("pod-1", ContainerStarted, "s1")}
	type relist struct {
		pods   []tracePod
		failed []string
		want   []traceEvent
	}
	tests := []struct {
		name      string
		semantics Semantics
		relists   []relist
	}{
		{"v1.36-v1.37 back to the recorded state", PodSyncAfterReinspection, []relist{
			{pods: []tracePod{running}, want: started},
			{pods: []tracePod{exited}, failed: []string{"pod-1"}, want: []traceEvent{}},
			{pods: []tracePod{running}, want: []traceEvent{{PodID: "pod-1", Type: string(PodSync)}}},
			{pods: []tracePod{running}, want: []traceEvent{}},
		}},
		{"v1.33-v1.35 back to the recorded state", NoPodSyncAfterReinspection, []relist{
			{pods: []tracePod{running}, want: started},
			{pods: []tracePod{exited}, failed: []string{"pod-1"}, want: []traceEvent{}},
			{pods: []tracePod{running}, want: []traceEvent{}},
			{pods: []tracePod{exited}, want: []traceEvent{ev("pod-1", ContainerDied, "c1")}},
		}},
		{"v1.33-v1.35 change seen again", NoPodSyncAfterReinspection, []relist{
			{pods: []tracePod{running}, want: started},
			{pods: []tracePod{exited}, failed: []string{"pod-1"}, want: []traceEvent{}},
			{pods: []tracePod{exited}, want: []traceEvent{ev("pod-1", ContainerDied, "c1")}},
		}},
	}
	for _, sem := range []Semantics{NoPodSyncAfterReinspection, PodSyncAfterReinspection} {
		tests = append(tests, struct {
			name      string
			semantics Semantics
			relists   []relist
		}{"status error for a vanished pod, " + sem.String(), sem, []relist{
			{pods: []tracePod{running}, want: started},
			{failed: []string{"pod-1"}, want: []traceEvent{
				ev("pod-1", ContainerDied, "c1"), ev("pod-1", ContainerRemoved, "c1"),
				ev("pod-1", ContainerDied, "s1"), ev("pod-1", ContainerRemoved, "s1")}},
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newFakeRuntime()
			rec := &recorder{}
			g := New(rt, Options{Semantics: tt.semantics, Handler: rec})
			var lastSeq uint64
			for i, rl := range tt.relists {
				sandboxes, containers := runtimeObjects(t, rl.pods)
				rt.set(sandboxes, containers, rl.failed...)
				if err := g.Relist(context.Background()); err != nil {
					t.Fatalf("relist %d: %v", i, err)
				}
				got := []traceEvent{}
				for _, ev := range rec.sentAfter(lastSeq) {
					got = append(got, toTraceEvent(ev))
				}
				if evs := rec.after(lastSeq); len(evs) > 0 {
					lastSeq = evs[len(evs)-1].Seq
				}
				if !reflect.DeepEqual(got, rl.want) {
					t.Errorf("relist %d: sent %s, want %s", i, jsonString(got), jsonString(rl.want))
				}
			}
		})
	}
}

func ev(pod string, typ EventType, data string) traceEvent {
	return traceEvent{PodID: pod, Type: string(typ), Data: &data}
}
