package agent

import (
	"context"
	"slices"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/eventring"
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

// TestRelistInputsIgnoreTheRuntimesOrder checks that relists that list the
// same in another order record one listing, with only the kubelet's labels.
func TestRelistInputsIgnoreTheRuntimesOrder(t *testing.T) {
	ring := eventring.New(100, nil)
	r := &recordingRuntime{Runtime: &shuffledRuntime{}, in: newInputs(ring, false)}
	for range 4 {
		if _, err := r.ListPodSandbox(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ListContainers(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	var b eventring.Batch
	ring.Read(&b, 0, 100)
	if len(b.Events) != 1 || b.Events[0].Input == nil || b.Events[0].Input.Relist == nil {
		t.Fatalf("recorded %d events, want one listing", len(b.Events))
	}
	l := b.Events[0].Input.Relist
	if len(l.Sandboxes) != 2 || len(l.Containers) != 2 || l.Containers[1].Labels["app"] != "" || l.Containers[1].Labels[cri.LabelPodUID] != "uid-b" {
		t.Fatalf("listing %+v, want both sandboxes and containers, with the kubelet's labels only", l)
	}
	if b.Events[0].Kind != v1alpha1.EventKindInput {
		t.Fatalf("kind %q", b.Events[0].Kind)
	}
}
