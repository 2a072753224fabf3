package pleg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/test/cluster"
	testcri "github.com/podsrc/podsrc/test/cri"
)

// Bounds of the real-runtime test. Containerd answers in milliseconds; the
// waits are generous because the shared machine may be loaded.
const (
	ctrdRelistPeriod = 100 * time.Millisecond
	ctrdCallTimeout  = time.Second
	ctrdWait         = 30 * time.Second
)

// ctrdFixture is a PLEG running against a standalone containerd of the test
// cluster, and a CRI driver for the same containerd.
type ctrdFixture struct {
	d      *cluster.Containerd
	image  string
	drv    *testcri.Client
	g      *GenericPLEG
	rec    *recorder
	seen   uint64              // last event Seq consumed by waitEvent
	events []PodLifecycleEvent // every sent event read from rec
}

// startContainerdFixture starts a containerd named name and a PLEG on it.
// With events, the PLEG follows containerd's container events and its
// relist period is an hour: every event after the first relist is there
// because containerd reported a change.
func startContainerdFixture(t *testing.T, name string, events bool) *ctrdFixture {
	t.Helper()
	c := cluster.Get(t)
	d := cluster.StandaloneContainerd(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), ctrdWait)
	defer cancel()
	drv, err := testcri.Dial(ctx, d.Endpoint)
	if err != nil {
		t.Fatalf("driver for %s: %v", d.Endpoint, err)
	}
	t.Cleanup(func() { drv.Close() })
	// Whatever the test leaves is removed before the containerd is stopped
	// (cleanups run last registered first).
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := drv.RemoveAll(ctx); err != nil {
			t.Errorf("removing what the test left: %v", err)
		}
	})

	// With events, a relist that failed would wait the period, an hour,
	// and leave the events unheeded meanwhile: the calls get the default
	// timeout, which a loaded machine does not reach.
	callTimeout := ctrdCallTimeout
	if events {
		callTimeout = cri.DefaultCallTimeout
	}
	client, err := cri.Dial(d.Endpoint, cri.Options{CallTimeout: callTimeout, ReconnectMaxDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	opts := Options{RelistPeriod: ctrdRelistPeriod, MaxBackoff: 800 * time.Millisecond}
	if events {
		opts.RelistPeriod, opts.RuntimeEvents = time.Hour, client
	}
	rec := &recorder{}
	opts.Handler = rec
	opts.Observer = &measures{}
	g := New(client, opts)
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Run(runCtx)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case <-done:
		case <-time.After(ctrdWait):
			t.Error("Run did not return after its context was cancelled")
		}
	})
	f := &ctrdFixture{d: d, image: c.TestImage, drv: drv, g: g, rec: rec}
	// Run relists at once: await that first relist, which may be over
	// already (awaitRelists would wait for one more, with events an hour
	// away).
	awaitSuccessfulRelists(t, g, 1, ctrdWait)
	if evs := rec.after(0); len(evs) != 0 {
		t.Fatalf("a fresh containerd gave events: %s", jsonString(evs))
	}
	return f
}

// runPod runs a host-network pod on the fixture's containerd and returns
// its sandbox's ID and a function that creates and starts a container of
// the test image in it with args, returning the container's ID.
func (f *ctrdFixture) runPod(ctx context.Context, t *testing.T, name string, uid types.UID) (string, func(name string, args ...string) string) {
	t.Helper()
	sb, podCfg, err := f.drv.RunPod(ctx, testcri.Pod{
		Name:         name,
		UID:          string(uid),
		HostNetwork:  true,
		CgroupParent: f.d.CgroupParent + "/" + name,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb, func(name string, args ...string) string {
		t.Helper()
		id, err := f.drv.CreateContainer(ctx, sb, podCfg, testcri.Container{Name: name, Image: f.image, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.drv.StartContainer(ctx, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
}

// waitEvent reads the sent events until one of type typ about id arrives
// and returns it. Events read on the way are kept in f.events.
func (f *ctrdFixture) waitEvent(t *testing.T, typ EventType, id string) PodLifecycleEvent {
	t.Helper()
	for _, ev := range f.events {
		if ev.Type == typ && ev.Data == id {
			return ev
		}
	}
	var found PodLifecycleEvent
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, ctrdWait, true, func(context.Context) (bool, error) {
		for _, ev := range f.rec.sentAfter(f.seen) {
			f.events = append(f.events, *ev)
			f.seen = ev.Seq
			if ev.Type == typ && ev.Data == id {
				found = *ev
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s %s; events so far: %s", typ, id, jsonString(f.events))
	}
	return found
}

// awaitRelists waits for n more successful relists.
func (f *ctrdFixture) awaitRelists(t *testing.T, n uint64) {
	t.Helper()
	awaitSuccessfulRelists(t, f.g, successfulRelists(t, f.g)+n, ctrdWait)
}

// drain moves the sent events not read yet into f.events.
func (f *ctrdFixture) drain() {
	for _, ev := range f.rec.sentAfter(f.seen) {
		f.events = append(f.events, *ev)
		f.seen = ev.Seq
	}
}

// expectNoEventsSince checks that a few successful relists after the call no
// event at all (ContainerChanged included) was computed after seq. Waiting
// for whole relists also waits for the events of the relist in flight to be
// recorded.
func (f *ctrdFixture) expectNoEventsSince(t *testing.T, seq uint64, what string) {
	t.Helper()
	f.awaitRelists(t, 3)
	if evs := f.rec.after(seq); len(evs) != 0 {
		t.Fatalf("%s: unexpected events: %s", what, jsonString(evs))
	}
}

// lastSeq returns the Seq of the last computed event.
func (f *ctrdFixture) lastSeq() uint64 {
	evs := f.rec.after(0)
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

// containerStatus returns a container's cached status.
func (f *ctrdFixture) containerStatus(t *testing.T, uid types.UID, id string) ContainerStatus {
	t.Helper()
	cp, ok := f.g.Cache().Get(uid)
	if !ok || cp.Status == nil {
		t.Fatalf("no cached status for pod %s: %s", uid, jsonString(cp))
	}
	for _, cs := range cp.Status.Containers {
		if cs.ID == id {
			return cs
		}
	}
	t.Fatalf("container %s not in the cached status of %s: %s", id, uid, jsonString(cp.Status))
	return ContainerStatus{}
}

// watchHealth samples Health every few milliseconds until the returned stop
// is called, which returns the first sample whose runtime was not OK (zero if
// none was).
func watchHealth(g *GenericPLEG) (stop func() (Health, bool)) {
	var (
		mu   sync.Mutex
		bad  Health
		seen bool
	)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := g.Health(); !h.RuntimeOK {
				mu.Lock()
				if !seen {
					bad, seen = h, true
				}
				mu.Unlock()
			}
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (Health, bool) {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return bad, seen
	}
}

// containerdPID returns the PID of the standalone containerd from the PID
// file hack/cluster.sh keeps next to its state directory.
func containerdPID(t *testing.T, d *cluster.Containerd) int {
	t.Helper()
	state := d.Env["CONTAINERD_STATE"]
	if state == "" {
		t.Fatal("hack/cluster.sh did not print CONTAINERD_STATE")
	}
	file := filepath.Join(filepath.Dir(state), "pids", "containerd-"+d.Name+".pid")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading containerd's PID file: %v", err)
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		t.Fatalf("empty PID file %s", file)
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		t.Fatalf("PID file %s: %v", file, err)
	}
	return pid
}

// TestContainerd drives a real containerd and runc through CRI, as the
// kubelet would, and checks that the PLEG reports what the kubelet's would:
// ContainerStarted for the sandbox and the containers, ContainerDied with the
// exit code in the cache, ContainerRemoved with the real IDs; that a
// containerd restart and a containerd that stops answering are reported with
// their cause and recovered from by itself, without any event.
func TestContainerd(t *testing.T) {
	f := startContainerdFixture(t, "pleg-it", false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const uid = types.UID("uid-pleg-it")
	sb, create := f.runPod(ctx, t, "pleg-it", uid)
	// The first container runs long enough for several relists to see it
	// running, then exits 7; the second runs until it is stopped, then
	// exits 42.
	short := create("short", "-sleep", "1s", "-exit", "7")
	long := create("long", "-sleep", "1h", "-term-code", "42")

	t.Run("started", func(t *testing.T) {
		for _, id := range []string{sb, short, long} {
			ev := f.waitEvent(t, ContainerStarted, id)
			if ev.ID != uid || ev.PodName != "pleg-it" || ev.PodNamespace != "default" || ev.Sandbox != (id == sb) {
				t.Errorf("event %s", jsonString(ev))
			}
		}
		if ev := f.waitEvent(t, ContainerStarted, long); ev.ContainerName != "long" {
			t.Errorf("container name %q, want long", ev.ContainerName)
		}
		if cs := f.containerStatus(t, uid, long); cs.State != StateRunning || cs.StartedAt.IsZero() || cs.Name != "long" || cs.SandboxID != sb {
			t.Errorf("cached status of the running container: %s", jsonString(cs))
		}
		pods, _ := f.g.Pods()
		if len(pods) != 1 || pods[0].ID != uid || len(pods[0].Sandboxes) != 1 || pods[0].Sandboxes[0].ID != sb {
			t.Errorf("Pods() = %s", jsonString(pods))
		}
	})

	t.Run("died with exit code", func(t *testing.T) {
		f.waitEvent(t, ContainerDied, short)
		cs := f.containerStatus(t, uid, short)
		if cs.State != StateExited || cs.ExitCode != 7 || cs.Reason == "" || cs.StartedAt.IsZero() || cs.FinishedAt.IsZero() || cs.FinishedAt.Before(cs.StartedAt) {
			t.Errorf("cached status of the exited container: %s", jsonString(cs))
		}
		f.drain()
		f.expectNoEventsSince(t, f.seen, "after the exit")
	})

	t.Run("containerd restart", func(t *testing.T) {
		before := measuredBy(t, f.g)
		seq := f.lastSeq()
		stop := watchHealth(f.g)
		rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
		err := f.d.Restart(rctx)
		rcancel()
		bad, sawBad := stop()
		if err != nil {
			t.Fatal(err)
		}
		f.awaitRelists(t, 1)
		after := measuredBy(t, f.g)
		if after.RelistFailures > before.RelistFailures {
			if !sawBad {
				t.Error("relists failed but Health never said the runtime was not OK")
			} else if bad.LastError == "" || bad.ConsecutiveFailures == 0 {
				t.Errorf("health while containerd restarted has no cause: %+v", bad)
			}
			if !strings.Contains(after.LastError, "relist: listing") {
				t.Errorf("last error %q does not name the failing call", after.LastError)
			}
			t.Logf("%d relists failed during the restart; first bad health: %s", after.RelistFailures-before.RelistFailures, bad.LastError)
		} else {
			t.Logf("containerd restarted without a failed relist (%d relists)", after.Relists-before.Relists)
		}
		if h := f.g.Health(); !h.RuntimeOK || !h.Healthy {
			t.Errorf("health after the restart: %+v", h)
		}
		f.expectNoEventsSince(t, seq, "containerd restart")
		if cs := f.containerStatus(t, uid, long); cs.State != StateRunning {
			t.Errorf("the long container after the restart: %s", jsonString(cs))
		}
		ctrs, err := f.drv.ListContainers(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, c := range ctrs {
			ids[c.Id] = c.State.String()
		}
		if ids[long] != "CONTAINER_RUNNING" || ids[short] != "CONTAINER_EXITED" || len(ids) != 2 {
			t.Errorf("containers after the restart: %v", ids)
		}
	})

	t.Run("containerd hangs", func(t *testing.T) {
		pid := containerdPID(t, f.d)
		seq := f.lastSeq()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("stopping containerd %d: %v", pid, err)
		}
		resumed := false
		resume := func() {
			if !resumed {
				resumed = true
				if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
					t.Errorf("resuming containerd %d: %v", pid, err)
				}
			}
		}
		defer resume()
		await(t, "3 consecutive failed relists", func() bool { return f.g.Health().ConsecutiveFailures >= 3 })
		h := f.g.Health()
		if h.RuntimeOK || !strings.Contains(h.LastError, "no answer within "+ctrdCallTimeout.String()) {
			t.Errorf("health while containerd hangs: %+v", h)
		}
		if !h.Healthy {
			t.Errorf("the kubelet's verdict turns bad only after the threshold: %+v", h)
		}
		// Backoff: the pause after the k-th consecutive failed relist is
		// retryDelay(k), which doubles from the relist period.
		checkBackoff(t, f.g)
		resume()
		await(t, "recovery after containerd resumed", func() bool { return f.g.Health().RuntimeOK })
		f.expectNoEventsSince(t, seq, "containerd hang")
	})

	t.Run("stopped and removed", func(t *testing.T) {
		if err := f.drv.StopContainer(ctx, long, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		f.waitEvent(t, ContainerDied, long)
		if cs := f.containerStatus(t, uid, long); cs.State != StateExited || cs.ExitCode != 42 || cs.FinishedAt.IsZero() {
			t.Errorf("cached status of the stopped container: %s", jsonString(cs))
		}
		if err := f.drv.RemoveContainer(ctx, long); err != nil {
			t.Fatal(err)
		}
		f.waitEvent(t, ContainerRemoved, long)
		if err := f.drv.StopPod(ctx, sb); err != nil {
			t.Fatal(err)
		}
		if ev := f.waitEvent(t, ContainerDied, sb); !ev.Sandbox {
			t.Errorf("sandbox event not marked: %s", jsonString(ev))
		}
		if err := f.drv.RemovePod(ctx, sb); err != nil {
			t.Fatal(err)
		}
		f.waitEvent(t, ContainerRemoved, short)
		f.waitEvent(t, ContainerRemoved, sb)
		if cp, ok := f.g.Cache().Get(uid); ok {
			t.Errorf("the removed pod is still cached: %s", jsonString(cp))
		}
		f.drain()
		f.expectNoEventsSince(t, f.seen, "after the removal")
	})

	t.Run("event sequence", func(t *testing.T) {
		// Per ID, exactly the kubelet's sequence, and every event about
		// this pod.
		want := map[string][]EventType{
			sb:    {ContainerStarted, ContainerDied, ContainerRemoved},
			short: {ContainerStarted, ContainerDied, ContainerRemoved},
			long:  {ContainerStarted, ContainerDied, ContainerRemoved},
		}
		got := map[string][]EventType{}
		for _, ev := range f.events {
			if ev.ID != uid {
				t.Errorf("event of another pod: %s", jsonString(ev))
			}
			got[ev.Data] = append(got[ev.Data], ev.Type)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events by ID:\n got %v\nwant %v\nall: %s", got, want, jsonString(f.events))
		}
		// The kubelet computes ContainerChanged for created containers but
		// never sends it; nothing else may be left unsent.
		for _, r := range f.rec.after(0) {
			if r.Outcome != OutcomeSent && !(r.Type == ContainerChanged && r.Outcome == OutcomeNotSent) {
				t.Errorf("event %s", jsonString(r))
			}
		}
	})
}

// TestContainerdRuntimeEvents runs the PLEG on a real containerd with its
// container events followed and a relist period of an hour: a container's
// start and exit reach the PLEG only because containerd reported them, and
// so does another container's exit after containerd restarted (the stream
// broke and was opened again), with the PLEG healthy throughout.
func TestContainerdRuntimeEvents(t *testing.T) {
	f := startContainerdFixture(t, "pleg-ev", true)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const uid = types.UID("uid-pleg-ev")
	sb, run := f.runPod(ctx, t, "pleg-ev", uid)

	first := run("first", "-sleep", "1s", "-exit", "7")
	f.waitEvent(t, ContainerStarted, sb)
	f.waitEvent(t, ContainerStarted, first)
	f.waitEvent(t, ContainerDied, first)
	if cs := f.containerStatus(t, uid, first); cs.State != StateExited || cs.ExitCode != 7 {
		t.Errorf("cached status of the exited container: %s", jsonString(cs))
	}

	rctx, rcancel := context.WithTimeout(ctx, 2*time.Minute)
	err := f.d.Restart(rctx)
	rcancel()
	if err != nil {
		t.Fatal(err)
	}
	// The stream is opened again within eventsRetryMax of containerd's
	// return; then it stays open.
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, ctrdWait, true, func(context.Context) (bool, error) {
		return f.g.RuntimeEvents().State == RuntimeEventsFollowing, nil
	}); err != nil {
		t.Fatalf("the event stream is not followed again after the restart: %+v: %v", f.g.RuntimeEvents(), err)
	}
	// Started after the restart: seen as started and died or, if the
	// stream opened after the start, as died. It exits seconds after
	// the stream is followed, so that the stream is open by then.
	second := run("second", "-sleep", "3s", "-exit", "9")
	f.waitEvent(t, ContainerDied, second)
	if cs := f.containerStatus(t, uid, second); cs.State != StateExited || cs.ExitCode != 9 {
		t.Errorf("cached status of the second container: %s", jsonString(cs))
	}
	st, events := measuredBy(t, f.g), f.g.RuntimeEvents()
	if events.State != RuntimeEventsFollowing || events.Relists == 0 {
		t.Errorf("runtime events: %+v", events)
	}
	if h := f.g.Health(); !h.Healthy || !h.RuntimeOK {
		t.Errorf("health after the restart: %+v", h)
	}
	t.Logf("runtime events %+v; %d relists, %d failed", events, st.Relists, st.RelistFailures)
}
