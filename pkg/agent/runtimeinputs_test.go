package agent

import (
	"context"
	"fmt"
	"slices"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// shuffledRuntime lists the same sandboxes and containers in another
// order at each call, as a runtime may.
type shuffledRuntime struct {
	cri.Runtime
	calls int
}

func (r *shuffledRuntime) ListPodSandbox(context.Context, *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	r.calls++
	s := []*runtimeapi.PodSandbox{{Id: "a", State: runtimeapi.PodSandboxState_SANDBOX_READY}, {Id: "b"}}
	if r.calls%2 == 0 {
		slices.Reverse(s)
	}
	return s, nil
}

func (r *shuffledRuntime) ListContainers(context.Context, *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	c := []*runtimeapi.Container{{Id: "c1", PodSandboxId: "a"}, {Id: "c2", PodSandboxId: "b", Labels: map[string]string{"app": "secret-label", cri.LabelPodUID: "uid-b"}}}
	if r.calls%2 == 0 {
		slices.Reverse(c)
	}
	return c, nil
}

func (r *shuffledRuntime) ContainerStatus(_ context.Context, id string) (*runtimeapi.ContainerStatusResponse, error) {
	return &runtimeapi.ContainerStatusResponse{Status: &runtimeapi.ContainerStatus{Id: id, Message: "secret-message"}}, nil
}

// countingHandler counts the events it is handed, and the inputs on ring
// when each came.
type countingHandler struct {
	ring   *eventring.Ring
	inputs []uint64
}

func (h *countingHandler) HandleEvent(pleg.ComputedEvent) {
	h.inputs = append(h.inputs, h.ring.LastSeq())
}

// TestRelistInputs checks that a relist's listing is recorded only before
// its first inspection or event, in the order of the IDs whatever the
// runtime's, with only the kubelet's labels; an inspection without the
// container's message.
func TestRelistInputs(t *testing.T) {
	ring := eventring.New(100, nil)
	r := &recordingRuntime{Runtime: &shuffledRuntime{}, in: newInputs(ring, false)}
	next := &countingHandler{ring: ring}
	h := recordedHandler{runtime: r, EventHandler: next}
	ctx := context.Background()
	relist := func() {
		t.Helper()
		if _, err := r.ListPodSandbox(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ListContainers(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	relist()
	relist()
	if n := ring.LastSeq(); n != 0 {
		t.Fatalf("relists that inspected nothing and made no event recorded %d inputs", n)
	}
	relist()
	if _, err := r.ContainerStatus(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	relist()
	h.HandleEvent(pleg.ComputedEvent{})
	h.HandleEvent(pleg.ComputedEvent{})

	var b eventring.Batch
	ring.Read(&b, 0, 100)
	kinds := []string{}
	for _, e := range b.Events {
		switch in := e.Input; {
		case in != nil && in.Relist != nil:
			kinds = append(kinds, "relist")
			l := in.Relist
			if len(l.Sandboxes) != 2 || l.Sandboxes[0].Id != "a" || len(l.Containers) != 2 || l.Containers[0].Id != "c1" ||
				l.Containers[1].Labels["app"] != "" || l.Containers[1].Labels[cri.LabelPodUID] != "uid-b" {
				t.Errorf("listing %+v, want both sandboxes and containers in the order of their IDs, with the kubelet's labels only", l)
			}
		case in != nil && in.Inspection != nil:
			kinds = append(kinds, "inspection")
			if c := in.Inspection.Container; c == nil || c.Id != "c2" || c.Message != "" {
				t.Errorf("inspection %+v, want container c2's without its message", in.Inspection)
			}
		}
	}
	if want := []string{"relist", "inspection", "relist"}; !slices.Equal(kinds, want) {
		t.Fatalf("inputs %v, want %v", kinds, want)
	}
	if want := []uint64{3, 3}; !slices.Equal(next.inputs, want) {
		t.Fatalf("the events came after inputs %v, want both after the third", next.inputs)
	}
	if b.Events[0].Kind != v1alpha1.EventKindInput {
		t.Fatalf("kind %q", b.Events[0].Kind)
	}
}

// manyRuntime lists n sandboxes with a container each, the same at each
// call.
type manyRuntime struct {
	cri.Runtime
	sandboxes  []*runtimeapi.PodSandbox
	containers []*runtimeapi.Container
}

func (r *manyRuntime) ListPodSandbox(context.Context, *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	return r.sandboxes, nil
}

func (r *manyRuntime) ListContainers(context.Context, *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	return r.containers, nil
}

// BenchmarkUnchangedRelistRecorded is what recording costs a relist that
// inspects nothing and makes no event, at 110 pods: the steady node's
// relist, every second.
func BenchmarkUnchangedRelistRecorded(b *testing.B) {
	rt := &manyRuntime{}
	for i := range 110 {
		id := fmt.Sprintf("%064d", i)
		rt.sandboxes = append(rt.sandboxes, &runtimeapi.PodSandbox{Id: "s" + id, Metadata: &runtimeapi.PodSandboxMetadata{Name: "p", Uid: id, Namespace: "default"},
			State: runtimeapi.PodSandboxState_SANDBOX_READY, CreatedAt: int64(i)})
		rt.containers = append(rt.containers, &runtimeapi.Container{Id: "c" + id, PodSandboxId: "s" + id, Metadata: &runtimeapi.ContainerMetadata{Name: "c"},
			Image: &runtimeapi.ImageSpec{Image: "nginx"}, State: runtimeapi.ContainerState_CONTAINER_RUNNING, CreatedAt: int64(i),
			Labels: map[string]string{cri.LabelPodUID: id, cri.LabelPodName: "p", cri.LabelPodNamespace: "default", cri.LabelContainerName: "c", "app": "web"}})
	}
	r := &recordingRuntime{Runtime: rt, in: newInputs(eventring.New(16, nil), false)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = r.ListPodSandbox(ctx, nil)
		_, _ = r.ListContainers(ctx, nil)
	}
}
