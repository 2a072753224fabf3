package pleg

import (
	"context"
	"fmt"
	"slices"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// recordingHandler keeps what it is told, and what the PLEG kept of its
// events at each call.
type recordingHandler struct {
	g    *GenericPLEG
	got  []ComputedEvent
	kept []int
}

func (h *recordingHandler) HandleEvent(r ComputedEvent) {
	h.got = append(h.got, r)
	h.kept = append(h.kept, len(h.g.Events(0)))
}

// TestHandlerGetsEventsDuringTheRelist checks that the handler is told of
// every computed event, whatever its outcome, before Relist returns, in Seq
// order and after the event is kept, so that Events never lags it.
func TestHandlerGetsEventsDuringTheRelist(t *testing.T) {
	rt := newFakeRuntime()
	h := &recordingHandler{}
	g := New(rt, Options{ChannelCapacity: 2, Handler: h})
	h.g = g
	steps := []struct {
		name       string
		containers []runtimeapi.ContainerState
		failPod    bool
		want       []string
	}{
		{name: "three sandboxes, the channel holds two", want: []string{"ContainerStarted/sent", "ContainerStarted/sent", "ContainerStarted/dropped"}},
		{name: "a created container", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_CREATED}, want: []string{"ContainerChanged/not-sent-by-kubelet"}},
		{name: "its start, inspection failed", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_RUNNING}, failPod: true, want: []string{"ContainerStarted/discarded-inspection-failed"}},
		{name: "its start again", containers: []runtimeapi.ContainerState{runtimeapi.ContainerState_CONTAINER_RUNNING}, want: []string{"ContainerStarted/dropped"}},
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
		before := len(h.got)
		if err := g.Relist(context.Background()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var got []string
		for _, r := range h.got[before:] {
			got = append(got, string(r.Type)+"/"+r.Outcome)
		}
		if !slices.Equal(got, s.want) {
			t.Fatalf("%s: handler got %v, want %v", s.name, got, s.want)
		}
	}
	kept := g.Events(0)
	if len(kept) != len(h.got) {
		t.Fatalf("handler got %d events, the PLEG kept %d", len(h.got), len(kept))
	}
	for i, r := range h.got {
		if r.Seq != uint64(i+1) || kept[i].Seq != r.Seq || kept[i].Outcome != r.Outcome {
			t.Fatalf("event %d: handler got %+v, the PLEG kept %+v", i, r, kept[i])
		}
		if h.kept[i] != i+1 {
			t.Fatalf("event %d: handled when the PLEG kept %d events", r.Seq, h.kept[i])
		}
	}
}
