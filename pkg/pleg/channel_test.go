package pleg

import (
	"context"
	"fmt"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// TestChannelFullDropsEvents checks that a relist never waits for the
// consumer: what does not fit in the channel is dropped and counted, and the
// pods are still recorded as reported, as in the kubelet.
func TestChannelFullDropsEvents(t *testing.T) {
	rt := newFakeRuntime()
	var sandboxes []*runtimeapi.PodSandbox
	for i := range 5 {
		sandboxes = append(sandboxes, sandboxObj(fmt.Sprintf("s%d", i), fmt.Sprintf("p%d", i), 0, int64(i+1), runtimeapi.PodSandboxState_SANDBOX_READY))
	}
	rt.set(sandboxes, nil)
	rec := &recorder{}
	g := New(rt, Options{ChannelCapacity: 3, Handler: rec, Observer: &measures{}})
	if err := g.Relist(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := measuredBy(t, g)
	if st.EventsDropped != 2 || st.EventsSent[ContainerStarted] != 3 || st.EventsComputed[ContainerStarted] != 5 {
		t.Fatalf("dropped %d, sent %v, computed %v", st.EventsDropped, st.EventsSent, st.EventsComputed)
	}
	dropped := 0
	for _, r := range rec.after(0) {
		if r.Outcome == OutcomeDropped {
			dropped++
		}
	}
	if dropped != 2 {
		t.Fatalf("%d event records marked dropped, want 2", dropped)
	}
	// The dropped changes are not computed again.
	if err := g.Relist(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.after(5)); n != 0 {
		t.Fatalf("%d events after an unchanged relist", n)
	}
}
