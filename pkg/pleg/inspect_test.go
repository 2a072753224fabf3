package pleg

import (
	"context"
	"reflect"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
)

func TestInspectIPs(t *testing.T) {
	ready, notReady := runtimeapi.PodSandboxState_SANDBOX_READY, runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	network := func(ip string, extra ...string) *runtimeapi.PodSandboxNetworkStatus {
		n := &runtimeapi.PodSandboxNetworkStatus{Ip: ip}
		for _, e := range extra {
			n.AdditionalIps = append(n.AdditionalIps, &runtimeapi.PodIP{Ip: e})
		}
		return n
	}
	tests := []struct {
		name string
		// first is the newest sandbox's state and network before and after
		// a change; the pod IPs after each inspection are compared.
		before, after         runtimeapi.PodSandboxState
		netBefore, netAfter   *runtimeapi.PodSandboxNetworkStatus
		wantBefore, wantAfter []string
	}{
		{name: "dual stack", before: ready, after: ready, netBefore: network("10.0.0.1", "fd00::1"), netAfter: network("10.0.0.1", "fd00::1"),
			wantBefore: []string{"10.0.0.1", "fd00::1"}, wantAfter: []string{"10.0.0.1", "fd00::1"}},
		{name: "kept after the sandbox stops", before: ready, after: notReady, netBefore: network("10.0.0.1"), netAfter: nil,
			wantBefore: []string{"10.0.0.1"}, wantAfter: []string{"10.0.0.1"}},
		{name: "unparsable IP gives none", before: ready, after: ready, netBefore: network("10.0.0.1", "bogus"), netAfter: network("10.0.0.2"),
			wantBefore: nil, wantAfter: []string{"10.0.0.2"}},
		{name: "host network has none", before: ready, after: ready, netBefore: network(""), netAfter: nil,
			wantBefore: []string{}, wantAfter: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newFakeRuntime()
			g := New(rt, Options{})
			for i, step := range []struct {
				state runtimeapi.PodSandboxState
				net   *runtimeapi.PodSandboxNetworkStatus
				want  []string
			}{{tt.before, tt.netBefore, tt.wantBefore}, {tt.after, tt.netAfter, tt.wantAfter}} {
				sb := sandboxObj("s1", "p1", 0, 1, step.state)
				// A container that changes at each step, so that the pod
				// is inspected again.
				c := containerObj("c1", "p1", 1, runtimeapi.ContainerState_CONTAINER_RUNNING)
				if i == 1 {
					c.State = runtimeapi.ContainerState_CONTAINER_EXITED
				}
				rt.set([]*runtimeapi.PodSandbox{sb}, []*runtimeapi.Container{c})
				rt.sandboxStatus["s1"] = &runtimeapi.PodSandboxStatus{Id: "s1", Metadata: sb.Metadata, State: step.state, CreatedAt: 1, Network: step.net}
				if err := g.Relist(context.Background()); err != nil {
					t.Fatal(err)
				}
				cp, ok := g.Cache().Get("p1")
				if !ok || cp.Status == nil {
					t.Fatalf("step %d: no status", i)
				}
				if !reflect.DeepEqual(cp.Status.IPs, step.want) {
					t.Fatalf("step %d: IPs %#v, want %#v", i, cp.Status.IPs, step.want)
				}
			}
		})
	}
}

// TestInspectSkipsVanished checks that objects removed between the list and
// the status call are skipped, not failures.
func TestInspectSkipsVanished(t *testing.T) {
	rt := newFakeRuntime()
	rec := &recorder{}
	g := New(rt, Options{Handler: rec})
	sb := sandboxObj("s1", "p1", 0, 1, runtimeapi.PodSandboxState_SANDBOX_READY)
	c1 := containerObj("c1", "p1", 2, runtimeapi.ContainerState_CONTAINER_RUNNING)
	c2 := containerObj("c2", "p1", 1, runtimeapi.ContainerState_CONTAINER_EXITED)
	rt.set([]*runtimeapi.PodSandbox{sb}, []*runtimeapi.Container{c1, c2})
	rt.containerStatus["c1"] = &runtimeapi.ContainerStatus{Id: "c1", Metadata: c1.Metadata, State: c1.State, CreatedAt: 2, StartedAt: 5, Labels: map[string]string{cri.LabelContainerName: "app"}}
	// c2 is listed but its status says it does not exist.
	g.runtime = &notFoundStatus{fakeRuntime: rt, missing: "c2"}
	if err := g.Relist(context.Background()); err != nil {
		t.Fatal(err)
	}
	cp, _ := g.Cache().Get("p1")
	if cp.Error != "" || cp.Status == nil || len(cp.Status.Containers) != 1 || cp.Status.Containers[0].Name != "app" {
		t.Fatalf("cache: %s", jsonString(cp))
	}
	if n := len(rec.sentAfter(0)); n != 3 {
		t.Fatalf("%d events sent, want 3", n)
	}
}

// notFoundStatus answers NotFound for the status of one container.
type notFoundStatus struct {
	*fakeRuntime
	missing string
}

func (n *notFoundStatus) ContainerStatus(ctx context.Context, id string) (*runtimeapi.ContainerStatusResponse, error) {
	if id == n.missing {
		return n.fakeRuntime.ContainerStatus(ctx, "no-such-container")
	}
	return n.fakeRuntime.ContainerStatus(ctx, id)
}
