package pleg

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/cri/critest"
)

// fakeEvents is an in-memory cri.EventSource: send hands an event to the
// open stream and returns once the PLEG took it; end breaks the stream.
type fakeEvents struct {
	mu sync.Mutex
	// refuse, when set, is returned at once by the next streams.
	refuse error
	opens  int
	cur    *fakeStream
}

type fakeStream struct {
	events chan *runtimeapi.ContainerEventResponse
	// handled is told when the PLEG's handler returned.
	handled chan struct{}
	end     chan error
}

func (f *fakeEvents) WatchContainerEvents(ctx context.Context, handle func(*runtimeapi.ContainerEventResponse)) error {
	f.mu.Lock()
	f.opens++
	if f.refuse != nil {
		err := f.refuse
		f.mu.Unlock()
		return err
	}
	s := &fakeStream{events: make(chan *runtimeapi.ContainerEventResponse), handled: make(chan struct{}), end: make(chan error, 1)}
	f.cur = s
	f.mu.Unlock()
	for {
		select {
		case ev := <-s.events:
			handle(ev)
			s.handled <- struct{}{}
		case err := <-s.end:
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// open returns the open stream, or nil, and how many were opened.
func (f *fakeEvents) open() (*fakeStream, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur, f.opens
}

// send hands n events to the open stream, one after the other, each once
// the PLEG handled the one before.
func (f *fakeEvents) send(t *testing.T, n int) {
	t.Helper()
	s, _ := f.open()
	for range n {
		select {
		case s.events <- &runtimeapi.ContainerEventResponse{ContainerId: "c1", ContainerEventType: runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT}:
		case <-time.After(waitFor):
			t.Fatal("the PLEG does not read the event stream")
		}
		<-s.handled
	}
}

// end breaks the open stream with err.
func (f *fakeEvents) end(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur.end <- err
	f.cur = nil
}

// runWithEvents runs a PLEG over rt on a fake clock, with a relist period of
// one second, a backoff of at most 4 s and an event relist gap of 50 ms.
func runWithEvents(t *testing.T, rt *fakeRuntime, ev *fakeEvents) (*GenericPLEG, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	g := New(rt, Options{Clock: clk, RelistPeriod: time.Second, MaxBackoff: 4 * time.Second, RuntimeEvents: ev, EventRelistGap: 50 * time.Millisecond, Observer: &measures{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return g, clk
}

// TestRunRuntimeEvents drives Run with runtime events on a fake clock: an
// event brings the next relist forward, no sooner than the gap after the
// previous relist; a burst of events makes one relist; events that came
// before a relist started are covered by it; while relists fail, events
// ask for nothing and the backoff stands; the periodic relist goes on.
func TestRunRuntimeEvents(t *testing.T) {
	rt := newFakeRuntime()
	ev := &fakeEvents{}
	g, clk := runWithEvents(t, rt, ev)
	relists := func() uint64 { return measuredBy(t, g).Relists }
	// waitIdle waits until Run sleeps on its timer after n relists, with
	// the stream open: the only waiter of the clock is then Run's timer.
	waitIdle := func(what string, n uint64) {
		t.Helper()
		await(t, what, func() bool {
			s, _ := ev.open()
			return s != nil && relists() == n && clk.HasWaiters()
		})
	}
	waitIdle("the first relist", 1)

	steps := []struct {
		name string
		fail bool
		// events are sent first, then the clock advances.
		events  int
		advance time.Duration
		// want is the relist count after the step, asked how many
		// relists the events brought forward in all.
		want, asked uint64
	}{
		{name: "an event within the gap waits for it", events: 1, advance: 49 * time.Millisecond, want: 1, asked: 1},
		{name: "then relists", advance: time.Millisecond, want: 2, asked: 1},
		{name: "no relist without an event", advance: 500 * time.Millisecond, want: 2, asked: 1},
		{name: "an event past the gap relists at once", events: 1, want: 3, asked: 2},
		{name: "a burst within the gap waits for it", events: 5, advance: 40 * time.Millisecond, want: 3, asked: 3},
		{name: "and makes one relist", advance: 10 * time.Millisecond, want: 4, asked: 3},
		{name: "nothing more after the burst", advance: 500 * time.Millisecond, want: 4, asked: 3},
		{name: "the period still relists", advance: 500 * time.Millisecond, want: 5, asked: 3},
		{name: "a failed relist", fail: true, advance: time.Second, want: 6, asked: 3},
		{name: "events do not shorten the backoff", fail: true, events: 3, advance: 999 * time.Millisecond, want: 6, asked: 3},
		{name: "the backoff's relist fails again", fail: true, advance: time.Millisecond, want: 7, asked: 3},
		{name: "recovery after the backoff", events: 1, advance: 2 * time.Second, want: 8, asked: 3},
		{name: "events counted while failing were covered by the recovery", advance: 100 * time.Millisecond, want: 8, asked: 3},
		{name: "events relist again once relists succeed", events: 1, want: 9, asked: 4},
	}
	for _, s := range steps {
		rt.failLists(s.fail)
		ev.send(t, s.events)
		if s.events > 0 {
			// Run has taken the first event when asked is reached.
			await(t, s.name+": the event taken", func() bool { return g.RuntimeEvents().Relists == s.asked || s.fail })
		}
		clk.Step(s.advance)
		waitIdle(s.name, s.want)
		if got := relists(); got != s.want {
			t.Fatalf("%s: %d relists, want %d", s.name, got, s.want)
		}
		if got := g.RuntimeEvents(); got.Relists != s.asked || got.State != RuntimeEventsFollowing {
			t.Fatalf("%s: runtime events %+v, want %d relists asked, following", s.name, got, s.asked)
		}
	}
	if got := g.RuntimeEvents().Events; got != 12 {
		t.Errorf("%d events counted, want 12", got)
	}
}

// TestRunRuntimeEventsSlowRelist: a relist that lasted longer than
// EventRelistGap keeps the relist an event asks for that long after it, so
// that a storm of events leaves the runtime at least half the time.
func TestRunRuntimeEventsSlowRelist(t *testing.T) {
	rt := newFakeRuntime()
	ev := &fakeEvents{}
	g, clk := runWithEvents(t, rt, ev)
	const takes = 200 * time.Millisecond
	idle := func(what string, n uint64) {
		t.Helper()
		await(t, what, func() bool {
			s, _ := ev.open()
			return s != nil && measuredBy(t, g).Relists == n && clk.HasWaiters()
		})
	}
	idle("the first relist", 1)
	rt.onList(func() { clk.Step(takes) })
	clk.Step(time.Second)
	idle("a periodic relist that lasts "+takes.String(), 2)

	ev.send(t, 1)
	await(t, "the event taken", func() bool { return g.RuntimeEvents().Relists == 1 })
	clk.Step(takes - time.Millisecond)
	idle("the event waits for the relist's duration", 2)
	clk.Step(time.Millisecond)
	idle("then relists", 3)
}

// TestRunRuntimeEventsStream checks how Run copes with the stream: a
// runtime that serves no events leaves the periodic relist alone and is
// asked again a minute later; a broken stream (a runtime restart) is opened
// again after a backoff and brings relists forward again.
func TestRunRuntimeEventsStream(t *testing.T) {
	t.Run("unsupported", func(t *testing.T) {
		rt := newFakeRuntime()
		ev := &fakeEvents{refuse: status.Error(codes.Unimplemented, "unknown method GetContainerEvents")}
		g, clk := runWithEvents(t, rt, ev)
		await(t, "the stream refused", func() bool { return g.RuntimeEvents().State == RuntimeEventsUnsupported })
		if st := g.RuntimeEvents(); st.Error == "" {
			t.Errorf("no cause for the unsupported stream: %+v", st)
		}
		// Both Run and the stream's retry wait on the clock.
		idle := func(relists uint64) func() bool {
			return func() bool { return measuredBy(t, g).Relists == relists && clk.Waiters() == 2 }
		}
		await(t, "the retry scheduled", idle(1))
		for i := range 3 {
			clk.Step(time.Second)
			await(t, "a periodic relist", idle(uint64(i+2)))
		}
		clk.Step(unsupportedRetry - 3*time.Second)
		await(t, "the stream asked again", func() bool { _, opens := ev.open(); return opens == 2 })
	})
	t.Run("broken and opened again", func(t *testing.T) {
		rt := newFakeRuntime()
		ev := &fakeEvents{}
		g, clk := runWithEvents(t, rt, ev)
		await(t, "the stream open", func() bool { s, _ := ev.open(); return s != nil && measuredBy(t, g).Relists == 1 })
		ev.end(status.Error(codes.Unavailable, "error reading from server: EOF"))
		await(t, "the stream broken, its retry scheduled", func() bool {
			return g.RuntimeEvents().State == RuntimeEventsBroken && clk.Waiters() == 2
		})
		clk.Step(eventsRetryBase)
		await(t, "the stream open again", func() bool {
			s, opens := ev.open()
			return s != nil && opens == 2 && g.RuntimeEvents().State == RuntimeEventsFollowing
		})
		clk.Step(100 * time.Millisecond)
		ev.send(t, 1)
		await(t, "the relist an event asks for", func() bool { return measuredBy(t, g).Relists == 2 })
		if st := g.RuntimeEvents(); st.Relists != 1 || st.Events != 1 {
			t.Errorf("runtime events %+v, want 1 event and 1 relist", st)
		}
	})
}

// TestRuntimeEventsOverCRI follows the fake runtime's event stream through
// the real CRI client, with a relist period of an hour, so that every event
// after the first relist is there because a runtime event asked for a
// relist: a container's start and exit, then the same after the runtime
// restarted (the stream broke and was opened again). A runtime that serves
// no events is reported as such, and relisting goes on.
func TestRuntimeEventsOverCRI(t *testing.T) {
	start := func(t *testing.T, srv *critest.Server) *criFixture {
		t.Helper()
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		// A relist that failed would wait the period, an hour, and leave
		// the events unheeded meanwhile: no call may time out on a loaded
		// machine.
		client := dialCRI(t, srv, cri.DefaultCallTimeout)
		rec := &recorder{}
		g := New(client, Options{RelistPeriod: time.Hour, RuntimeEvents: client, Handler: rec, Observer: &measures{}})
		runUntilCleanup(t, g)
		f := &criFixture{srv: srv, g: g, rec: rec}
		// Run relists at once: await that first relist, which may be over
		// already (awaitRelists would wait for one more, an hour away).
		awaitSuccessfulRelists(t, g, 1, waitFor)
		return f
	}
	// exit starts a container in a new pod and stops it, and expects the
	// PLEG's events for both.
	exit := func(t *testing.T, f *criFixture, uid string) {
		t.Helper()
		sb := f.srv.RunSandbox(uid, "web-"+uid, "default", "10.0.0.7")
		c := f.srv.CreateContainer(sb, "app")
		f.srv.StartContainer(c)
		// The relists come in the order of the events, but one may
		// cover several changes: the sandbox's and the container's start
		// come in either order.
		evs := map[string]bool{}
		for _, ev := range f.expectAny(t, 2) {
			if ev.Type != ContainerStarted {
				t.Fatalf("got %s %s, want ContainerStarted", ev.Type, ev.Data)
			}
			evs[ev.Data] = true
		}
		if !evs[sb] || !evs[c] {
			t.Fatalf("started %v, want %s and %s", evs, sb, c)
		}
		f.srv.ExitContainer(c, 3, "Error")
		f.expectEvents(t, died(uid, c))
	}

	t.Run("restart", func(t *testing.T) {
		srv := critest.NewForTest(t)
		f := start(t, srv)
		await(t, "the stream open", func() bool { return srv.Streams() == 1 })
		exit(t, f, "uid-1")
		srv.Stop()
		await(t, "the stream broken", func() bool { return f.g.RuntimeEvents().State == RuntimeEventsBroken })
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		await(t, "the stream open again", func() bool { return srv.Streams() == 1 })
		exit(t, f, "uid-2")
		if st := f.g.RuntimeEvents(); st.State != RuntimeEventsFollowing || st.Relists == 0 {
			t.Errorf("runtime events after the restart: %+v", st)
		}
		if h := f.g.Health(); !h.Healthy || !h.RuntimeOK {
			t.Errorf("health: %+v", h)
		}
	})
	t.Run("unsupported", func(t *testing.T) {
		srv := critest.NewForTest(t)
		srv.Fail(critest.MethodGetContainerEvents, status.Error(codes.Unimplemented, "unknown method GetContainerEvents"))
		f := start(t, srv)
		await(t, "the stream refused", func() bool { return f.g.RuntimeEvents().State == RuntimeEventsUnsupported })
		if err := f.g.Relist(context.Background()); err != nil {
			t.Fatalf("relisting a runtime without events: %v", err)
		}
	})
}
