package pleg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/cri/critest"
)

// criFixture is a PLEG running against the fake CRI server over a real unix
// socket and gRPC connection.
type criFixture struct {
	srv  *critest.Server
	g    *GenericPLEG
	rec  *recorder
	seen uint64 // last event Seq consumed by expectEvents
}

const (
	// testCallTimeout is short, for the tests of a runtime that hangs.
	testCallTimeout = 300 * time.Millisecond
	waitFor         = 10 * time.Second
)

// runUntilCleanup runs the PLEG until the test ends, and checks that Run
// returns once its context is cancelled.
func runUntilCleanup(t *testing.T, g *GenericPLEG) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("Run did not return after its context was cancelled")
		}
	})
}

func startCRIFixture(t *testing.T, opts Options) *criFixture {
	t.Helper()
	srv := critest.NewForTest(t)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	client := dialCRI(t, srv, testCallTimeout)
	if opts.RelistPeriod == 0 {
		opts.RelistPeriod = 20 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 80 * time.Millisecond
	}
	rec := &recorder{}
	opts.Handler = rec
	opts.Observer = &measures{}
	g := New(client, opts)
	runUntilCleanup(t, g)
	return &criFixture{srv: srv, g: g, rec: rec}
}

// dialCRI returns a CRI client of srv whose calls time out after
// callTimeout, closed when the test ends.
func dialCRI(t *testing.T, srv *critest.Server, callTimeout time.Duration) *cri.Client {
	t.Helper()
	client, err := cri.Dial(srv.Endpoint(), cri.Options{CallTimeout: callTimeout, ReconnectMaxDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// await polls cond until it holds or the time is up.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// expectEvents awaits the next len(want) events sent to the kubelet, checks
// their type and data and returns them.
func (f *criFixture) expectEvents(t *testing.T, want ...PodLifecycleEvent) []*PodLifecycleEvent {
	t.Helper()
	got := f.expectAny(t, len(want))
	for i, w := range want {
		if ev := got[i]; ev.ID != w.ID || ev.Type != w.Type || ev.Data != w.Data {
			t.Fatalf("event %d: got %s %s %s, want %s %s %s", i, ev.ID, ev.Type, ev.Data, w.ID, w.Type, w.Data)
		}
	}
	return got
}

// expectAny awaits the next n events sent to the kubelet and returns them.
func (f *criFixture) expectAny(t *testing.T, n int) []*PodLifecycleEvent {
	t.Helper()
	var got []*PodLifecycleEvent
	await(t, fmt.Sprintf("%d events", n), func() bool {
		got = f.rec.sentAfter(f.seen)
		return len(got) >= n
	})
	got = got[:n]
	f.seen = got[n-1].Seq
	return got
}

// statusCalls counts the status calls the runtime answered.
func (f *criFixture) statusCalls() int {
	return f.srv.Calls(critest.MethodPodSandboxStatus) + f.srv.Calls(critest.MethodContainerStatus)
}

// expectQuiet checks that after a few more successful relists no event was
// computed since the last expected one, and that the relists that did not
// have to finish the expected events' work inspected no pod.
func (f *criFixture) expectQuiet(t *testing.T) {
	t.Helper()
	f.awaitRelists(t, 1)
	calls := f.statusCalls()
	f.awaitRelists(t, 3)
	if evs := f.rec.after(f.seen); len(evs) > 0 {
		t.Fatalf("unexpected events: %s", jsonString(evs))
	}
	if n := f.statusCalls() - calls; n != 0 {
		t.Fatalf("%d status calls by relists of an unchanged runtime", n)
	}
}

// awaitRelists waits for n more successful relists.
func (f *criFixture) awaitRelists(t *testing.T, n uint64) {
	t.Helper()
	awaitSuccessfulRelists(t, f.g, successfulRelists(t, f.g)+n, waitFor)
}

// successfulRelists is the number of g's relists that have succeeded.
func successfulRelists(t testing.TB, g *GenericPLEG) uint64 {
	t.Helper()
	s := measuredBy(t, g)
	return s.Relists - s.RelistFailures
}

// awaitSuccessfulRelists waits up to within until g has relisted
// successfully total times since it started.
func awaitSuccessfulRelists(t *testing.T, g *GenericPLEG, total uint64, within time.Duration) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, within, true, func(context.Context) (bool, error) {
		return successfulRelists(t, g) >= total, nil
	}); err != nil {
		t.Fatalf("timed out waiting for %d successful relists in all; health %+v", total, g.Health())
	}
}

func started(uid, id string) PodLifecycleEvent {
	return PodLifecycleEvent{ID: types.UID(uid), Type: ContainerStarted, Data: id}
}

func died(uid, id string) PodLifecycleEvent {
	return PodLifecycleEvent{ID: types.UID(uid), Type: ContainerDied, Data: id}
}

func removed(uid, id string) PodLifecycleEvent {
	return PodLifecycleEvent{ID: types.UID(uid), Type: ContainerRemoved, Data: id}
}

// runPod starts a pod with one running container and consumes its events.
func (f *criFixture) runPod(t *testing.T, uid string) (sandboxID, containerID string) {
	t.Helper()
	sandboxID = f.srv.RunSandbox(uid, "web-"+uid, "default", "10.0.0.7")
	containerID = f.srv.CreateContainer(sandboxID, "app")
	f.srv.StartContainer(containerID)
	f.expectEvents(t, started(uid, containerID), started(uid, sandboxID))
	return sandboxID, containerID
}

// readConcurrently calls every reader of g until the test ends, so that the
// race detector sees them next to the relists.
func readConcurrently(t *testing.T, g *GenericPLEG) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := json.Marshal(g.RuntimeEvents()); err != nil {
				t.Errorf("RuntimeEvents is not JSON-friendly: %v", err)
				return
			}
			g.Pods()
			g.Cache().List()
			g.Health()
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

func TestCRILifecycle(t *testing.T) {
	f := startCRIFixture(t, Options{})
	readConcurrently(t, f.g)
	sb, c := f.runPod(t, "uid-1")
	pods, _ := f.g.Pods()
	if len(pods) != 1 || pods[0].ID != "uid-1" || pods[0].Name != "web-uid-1" ||
		len(pods[0].Sandboxes) != 1 || pods[0].Sandboxes[0].ID != sb ||
		len(pods[0].Containers) != 1 || pods[0].Containers[0].ID != c || pods[0].Containers[0].State != StateRunning {
		t.Fatalf("Pods() = %s", jsonString(pods))
	}

	f.srv.ExitContainer(c, 3, "Error")
	if ev := f.expectEvents(t, died("uid-1", c))[0]; ev.ExitCode == nil || *ev.ExitCode != 3 || ev.ContainerName != "app" || ev.PodName != "web-uid-1" {
		t.Fatalf("died event %s, want exit code 3 of container app in pod web-uid-1", jsonString(ev))
	}
	cp, ok := f.g.Cache().Get("uid-1")
	if !ok || cp.Status == nil {
		t.Fatalf("no cached status for uid-1: %+v", cp)
	}
	if len(cp.Status.Containers) != 1 || cp.Status.Containers[0].ExitCode != 3 || cp.Status.Containers[0].Reason != "Error" {
		t.Fatalf("cached containers: %s", jsonString(cp.Status.Containers))
	}
	if got := cp.Status.IPs; len(got) != 1 || got[0] != "10.0.0.7" {
		t.Fatalf("cached IPs %v, want [10.0.0.7]", got)
	}

	f.srv.RemoveContainer(c)
	f.expectEvents(t, removed("uid-1", c))
	f.srv.StopSandbox(sb)
	f.expectEvents(t, died("uid-1", sb))
	cp, _ = f.g.Cache().Get("uid-1")
	if got := cp.Status.IPs; len(got) != 1 || got[0] != "10.0.0.7" {
		t.Fatalf("IPs of the stopped pod %v, want the last ones kept", got)
	}
	f.srv.RemoveSandbox(sb)
	f.expectEvents(t, removed("uid-1", sb))
	if _, ok := f.g.Cache().Get("uid-1"); ok {
		t.Fatal("the removed pod is still cached")
	}
	f.expectQuiet(t)

	st := measuredBy(t, f.g)
	if st.EventsSent[ContainerStarted] != 2 || st.EventsSent[ContainerDied] != 2 || st.EventsSent[ContainerRemoved] != 2 {
		t.Fatalf("events sent: %v", st.EventsSent)
	}
	for _, call := range []string{CallListPodSandbox, CallListContainers, CallPodSandboxStatus, CallContainerStatus} {
		if st.Calls[call].Count == 0 {
			t.Errorf("no latency recorded for %s", call)
		}
	}
	if len(st.Inspections) == 0 || st.Inspections[0].PodID != "uid-1" {
		t.Errorf("pod inspections: %s", jsonString(st.Inspections))
	}
}

// TestCRIListFaults injects failures and hangs into the list calls: the PLEG
// must report the runtime as failing with the cause, then recover by itself
// without computing any event, since nothing changed.
func TestCRIListFaults(t *testing.T) {
	unavailable := status.Error(codes.Unavailable, "runtime is restarting")
	tests := []struct {
		name      string
		method    string
		fail      error
		hang      bool
		wantCause string
	}{
		{name: "list sandboxes fails", method: critest.MethodListPodSandbox, fail: unavailable, wantCause: "listing pod sandboxes"},
		{name: "list containers fails", method: critest.MethodListContainers, fail: unavailable, wantCause: "listing containers"},
		{name: "list sandboxes hangs", method: critest.MethodListPodSandbox, hang: true, wantCause: "no answer within"},
		{name: "list containers hangs", method: critest.MethodListContainers, hang: true, wantCause: "no answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startCRIFixture(t, Options{})
			f.runPod(t, "uid-1")

			if tt.hang {
				f.srv.Hang(tt.method, true)
			} else {
				f.srv.Fail(tt.method, tt.fail)
			}
			await(t, "the runtime reported failing", func() bool { return !f.g.Health().RuntimeOK })
			h := f.g.Health()
			if !strings.Contains(h.LastError, tt.wantCause) {
				t.Fatalf("last error %q, want it to contain %q", h.LastError, tt.wantCause)
			}
			if ok, err := f.g.Healthy(); !ok {
				t.Fatalf("the kubelet stays healthy until the threshold; got %v", err)
			}
			f.srv.Hang(tt.method, false)
			f.srv.Fail(tt.method, nil)
			await(t, "recovery", func() bool { return f.g.Health().RuntimeOK })
			f.expectQuiet(t)
			if st := measuredBy(t, f.g); st.RelistFailures == 0 || st.Calls[tt.method].Errors == 0 {
				t.Fatalf("failures not counted: relist failures %d, %s errors %d", st.RelistFailures, tt.method, st.Calls[tt.method].Errors)
			}
		})
	}
}

// TestCRIStatusFaults makes the inspection of a changed pod fail or hang: the
// kubelet drops the pod's events, keeps its record and delivers them once the
// pod can be inspected again.
func TestCRIStatusFaults(t *testing.T) {
	tests := []struct {
		name   string
		method string
		hang   bool
	}{
		{name: "container status fails", method: critest.MethodContainerStatus},
		{name: "sandbox status fails", method: critest.MethodPodSandboxStatus},
		{name: "container status hangs", method: critest.MethodContainerStatus, hang: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startCRIFixture(t, Options{})
			_, c := f.runPod(t, "uid-1")
			if tt.hang {
				f.srv.Hang(tt.method, true)
			} else {
				f.srv.Fail(tt.method, status.Error(codes.Internal, "injected"))
			}
			f.srv.ExitContainer(c, 137, "OOMKilled")
			await(t, "a failed inspection", func() bool {
				cp, _ := f.g.Cache().Get("uid-1")
				return cp.Error != ""
			})
			if len(f.rec.sentAfter(f.seen)) != 0 {
				t.Fatal("events of a pod whose inspection failed were sent")
			}
			// The cache holds the error before the relist records the
			// pod's events as discarded.
			await(t, "the failed inspection and its discarded events counted", func() bool {
				st := measuredBy(t, f.g)
				return st.EventsDiscarded > 0 && st.InspectionFailures > 0
			})
			f.srv.Hang(tt.method, false)
			f.srv.Fail(tt.method, nil)
			f.expectEvents(t, died("uid-1", c))
			cp, _ := f.g.Cache().Get("uid-1")
			if cp.Error != "" || cp.Status == nil || cp.Status.Containers[0].ExitCode != 137 {
				t.Fatalf("cache after recovery: %s", jsonString(cp))
			}
		})
	}
}

// TestCRIRestart stops the runtime, changes it while it is away and starts it
// again on the same socket: the PLEG reports the outage with its cause, the
// kubelet's health turns bad after the threshold, and after recovery only the
// change made meanwhile is reported.
func TestCRIRestart(t *testing.T) {
	f := startCRIFixture(t, Options{RelistThreshold: 400 * time.Millisecond})
	_, c1 := f.runPod(t, "uid-1")
	sb2, c2 := f.runPod(t, "uid-2")
	f.srv.ExitContainer(c2, 0, "Completed")
	f.expectEvents(t, died("uid-2", c2))

	f.srv.Stop()
	await(t, "the kubelet's health to fail", func() bool { ok, _ := f.g.Healthy(); return !ok })
	ok, err := f.g.Healthy()
	var he *HealthError
	if ok || !errors.As(err, &he) {
		t.Fatalf("Healthy() = %v, %v", ok, err)
	}
	if !strings.HasPrefix(he.Message, "pleg was last seen active ") || !strings.HasSuffix(he.Message, "; threshold is 400ms") {
		t.Fatalf("message %q is not the kubelet's", he.Message)
	}
	if he.Cause == nil || !strings.Contains(he.Cause.Error(), "listing pod sandboxes") {
		t.Fatalf("cause %v does not name the failing call", he.Cause)
	}
	if h := f.g.Health(); h.RuntimeOK || h.ConsecutiveFailures == 0 {
		t.Fatalf("health while the runtime is away: %+v", h)
	}

	f.srv.RemoveContainer(c2)
	f.srv.RemoveSandbox(sb2)
	if err := f.srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The sandbox was ready when last seen: the kubelet reports it died
	// and was removed.
	f.expectEvents(t, removed("uid-2", c2), died("uid-2", sb2), removed("uid-2", sb2))
	await(t, "healthy again", func() bool { ok, _ := f.g.Healthy(); return ok })
	f.expectQuiet(t)
	if cp, _ := f.g.Cache().Get("uid-1"); cp.Status == nil || cp.Status.Containers[0].ID != c1 {
		t.Fatalf("uid-1's cache entry after the restart: %s", jsonString(cp))
	}
}
