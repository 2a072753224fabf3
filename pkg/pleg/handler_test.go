package pleg

import (
	"context"
	"fmt"
	"slices"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// TestHandlerGetsEventsDuringTheRelist checks that the handler is told of
// every computed event, whatever its outcome, before Relist returns, in Seq
// order, and that what it is told is what the observer is told.
func TestHandlerGetsEventsDuringTheRelist(t *testing.T) {
	rt := newFakeRuntime()
	h := &recorder{}
	g := New(rt, Options{ChannelCapacity: 2, Handler: h, Observer: &measures{}})
	steps := []struct {
		name       string
		containers []runtimeapi.ContainerState
		failPod    bool
		want       []string
	}{
		{name: "three sandboxes, the channel holds two", want: []string{"ContainerStarted/sent", "ContainerStarted/sent", "ContainerStarted/dropped"}},
		{name: "a created container", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_CREATED}, want: []string{"ContainerChanged/not-sent-by-kubelet"}},
		{name: "its start, inspection failed", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_RUNNING}, failPod: true, want: []string{"ContainerStarted/discarded-inspection-failed"}},
		// The kubelet read its channel empty since the first relist.
		{name: "its start again", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_RUNNING}, want: []string{"ContainerStarted/sent"}},
	}
	for _, s := range steps {
		var sandboxes []*runtimeapi.PodSandbox
		for i := range 3 {
			sandboxes = append(sandboxes, sandboxObj(fmt.Sprintf("s%d", i), fmt.Sprintf("p%d", i), 0, int64(i+1), runtimeapi.PodSandboxState_SANDBOX_READY))
		}
		var containers []*runtimeapi.Container
		for _, st := range s.containers {
			containers = append(containers, containerObj("c0", "p0", 10, st))
		}
		var fail []string
		if s.failPod {
			fail = []string{"p0"}
		}
		rt.set(sandboxes, containers, fail...)
		before := len(h.events)
		if err := g.Relist(context.Background()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var got []string
		for _, r := range h.events[before:] {
			got = append(got, string(r.Type)+"/"+r.Outcome)
		}
		if !slices.Equal(got, s.want) {
			t.Fatalf("%s: handler got %v, want %v", s.name, got, s.want)
		}
	}
	st := measuredBy(t, g)
	var computed uint64
	for _, n := range st.EventsComputed {
		computed += n
	}
	if computed != uint64(len(h.events)) {
		t.Fatalf("handler got %d events, the PLEG computed %d", len(h.events), computed)
	}
	for i, r := range h.events {
		if r.Seq != uint64(i+1) {
			t.Fatalf("event %d: handler got %+v, want Seq %d", i, r, i+1)
		}
	}
}

// TestHandlerGetsThePodsCacheEntry checks that each event comes with its
// pod's cache entry as the relist left it: the status the relist read
// after the change, the failed inspection's error, and none once the
// runtime no longer has the pod.
func TestHandlerGetsThePodsCacheEntry(t *testing.T) {
	rt := newFakeRuntime()
	h := &recorder{}
	g := New(rt, Options{Handler: h})
	sandbox := []*runtimeapi.PodSandbox{sandboxObj("s0", "p0", 0, 1, runtimeapi.PodSandboxState_SANDBOX_READY)}
	steps := []struct {
		name       string
		sandboxes  []*runtimeapi.PodSandbox
		containers []*runtimeapi.Container
		fail       []string
		// wantState is the state of container c0 in the entry's status;
		// wantError whether the entry is an error; noEntry whether there
		// is none.
		wantState ContainerState
		wantError bool
		noEntry   bool
	}{
		{name: "a running container", sandboxes: sandbox, containers: []*runtimeapi.Container{containerObj("c0", "p0", 10, runtimeapi.ContainerState_CONTAINER_RUNNING)}, wantState: StateRunning},
		{name: "it exits, inspection failed", sandboxes: sandbox, containers: []*runtimeapi.Container{containerObj("c0", "p0", 10, runtimeapi.ContainerState_CONTAINER_EXITED)}, fail: []string{"p0"}, wantState: StateRunning, wantError: true},
		{name: "it exited", sandboxes: sandbox, containers: []*runtimeapi.Container{containerObj("c0", "p0", 10, runtimeapi.ContainerState_CONTAINER_EXITED)}, wantState: StateExited},
		{name: "the pod is gone", noEntry: true},
	}
	for _, s := range steps {
		rt.set(s.sandboxes, s.containers, s.fail...)
		before := len(h.events)
		if err := g.Relist(context.Background()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		events := h.events[before:]
		if len(events) == 0 {
			t.Fatalf("%s: no event", s.name)
		}
		for _, r := range events {
			if s.noEntry {
				if r.Cached != nil {
					t.Errorf("%s: %s came with %+v, want no entry", s.name, r.Type, r.Cached)
				}
				continue
			}
			if r.Cached == nil || r.Cached.ID != "p0" || (r.Cached.Error != "") != s.wantError || r.Cached.Status == nil {
				t.Fatalf("%s: %s came with %+v, want p0's entry (error %v)", s.name, r.Type, r.Cached, s.wantError)
			}
			i := slices.IndexFunc(r.Cached.Status.Containers, func(c ContainerStatus) bool { return c.ID == "c0" })
			if i < 0 || r.Cached.Status.Containers[i].State != s.wantState {
				t.Errorf("%s: %s came with the status %+v, want c0 %s", s.name, r.Type, r.Cached.Status, s.wantState)
			}
			if c, ok := g.Cache().Get("p0"); !ok || c.Status != r.Cached.Status || c.Error != r.Cached.Error {
				t.Errorf("%s: %s came with %+v, the cache has %+v", s.name, r.Type, r.Cached, c)
			}
		}
	}
}
