package pleg

import (
	"context"
	"fmt"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// TestRelistInspectsOnlyChangedPods checks that, as in the kubelet, a relist
// reads the status of the pods whose containers changed, or whose last
// inspection failed, and of no other pod.
func TestRelistInspectsOnlyChangedPods(t *testing.T) {
	running, exited := runtimeapi.ContainerState_CONTAINER_RUNNING, runtimeapi.ContainerState_CONTAINER_EXITED
	node := func(p1 runtimeapi.ContainerState) ([]*runtimeapi.PodSandbox, []*runtimeapi.Container) {
		var sandboxes []*runtimeapi.PodSandbox
		var containers []*runtimeapi.Container
		for i, st := range []runtimeapi.ContainerState{running, p1, running} {
			uid := fmt.Sprintf("p%d", i)
			sandboxes = append(sandboxes, sandboxObj("s-"+uid, uid, 0, 1, runtimeapi.PodSandboxState_SANDBOX_READY))
			containers = append(containers, containerObj("c-"+uid, uid, 2, st))
		}
		return sandboxes, containers
	}
	rt := newFakeRuntime()
	g := New(rt, Options{Observer: &measures{}})
	ctx := context.Background()
	relist := func(step string, wantCalls, wantInspected int) {
		t.Helper()
		rt.mu.Lock()
		rt.statusCalls = 0
		rt.mu.Unlock()
		if err := g.Relist(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		rt.mu.Lock()
		calls := rt.statusCalls
		rt.mu.Unlock()
		recs := measuredBy(t, g).History
		if last := recs[len(recs)-1]; calls != wantCalls || last.Inspected != wantInspected {
			t.Fatalf("%s: %d status calls, %d pods inspected; want %d, %d", step, calls, last.Inspected, wantCalls, wantInspected)
		}
	}

	rt.set(node(running))
	relist("first relist", 6, 3)
	relist("unchanged", 0, 0)
	rt.set(node(exited))
	relist("one container exited", 2, 1)
	relist("unchanged again", 0, 0)
	sandboxes, containers := node(running)
	rt.set(sandboxes, containers, "p1")
	relist("the changed pod's inspection fails", 1, 1)
	rt.set(node(running))
	relist("the failed pod is inspected again", 2, 1)
	relist("then left alone", 0, 0)
}
