package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
	"k8s.io/apimachinery/pkg/types"
)

// startAgent serves fa on loopback and returns a client of it.
func startAgent(t *testing.T, fa *fakeagent.Agent) *Agent {
	t.Helper()
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	c := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: 10 * time.Second}
	a, err := c.Agent("")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// configEvent returns a config event of one pod.
func configEvent(op, name string) v1alpha1.Event {
	return v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: op, Source: "file", Pods: []v1alpha1.PodRef{{Name: name, Namespace: "kube-system", UID: types.UID("uid-" + name)}}}
}

// collector gathers what a Watcher delivers and lets the test await it.
type collector struct {
	mu   sync.Mutex
	msgs []*v1alpha1.StreamMessage
	ch   chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1000)} }

func (c *collector) handle(m *v1alpha1.StreamMessage) error {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
	c.ch <- struct{}{}
	return nil
}

// await waits until n messages arrived.
func (c *collector) await(t *testing.T, n int) []*v1alpha1.StreamMessage {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		if len(c.msgs) >= n {
			out := append([]*v1alpha1.StreamMessage(nil), c.msgs...)
			c.mu.Unlock()
			return out
		}
		c.mu.Unlock()
		select {
		case <-c.ch:
		case <-deadline:
			t.Fatalf("waited for %d messages, have %d", n, len(c.msgs))
		}
	}
}

// describe renders messages compactly for comparison.
func describe(msgs []*v1alpha1.StreamMessage) []string {
	var out []string
	for _, m := range msgs {
		switch m.Type {
		case v1alpha1.MessageEvent:
			out = append(out, "event "+strconv.FormatUint(m.Event.Seq, 10))
		case v1alpha1.MessageGap:
			out = append(out, "gap "+strconv.FormatUint(m.From, 10)+"-"+strconv.FormatUint(m.To, 10))
		default:
			out = append(out, m.Type+" "+strconv.FormatUint(m.Seq, 10))
		}
	}
	return out
}

func equal(a, b []string) bool { return slices.Equal(a, b) }

// runWatcher runs w in the background until the test ends.
func runWatcher(t *testing.T, w *Watcher, c *collector) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, c.handle) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("watcher did not stop")
		}
	})
	return done
}

func TestWatcherResumesAfterDrop(t *testing.T) {
	fa := fakeagent.New("node-1")
	for i := 0; i < 5; i++ {
		fa.Publish(configEvent("ADD", "p"))
	}
	fa.DropNextStreamAfter(3)
	a := startAgent(t, fa)
	var notes []Reconnect
	var mu sync.Mutex
	w := &Watcher{Open: a.Events, Query: v1alpha1.EventQuery{Since: v1alpha1.SeqMark(0)}, InitialBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxAttempts: 5,
		Notify: func(r Reconnect) { mu.Lock(); notes = append(notes, r); mu.Unlock() }}
	c := newCollector()
	runWatcher(t, w, c)
	c.await(t, 5)
	for i := 0; i < 3; i++ {
		fa.Publish(configEvent("UPDATE", "p"))
	}
	got := describe(c.await(t, 8))
	want := []string{"event 1", "event 2", "event 3", "event 4", "event 5", "event 6", "event 7", "event 8"}
	if !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	qs := fa.EventQueries()
	if len(qs) < 2 || qs[0].Get("since") != "0" || qs[1].Get("since") != "3" {
		t.Fatalf("stream queries %v, want since=0 then since=3", qs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !notes[0].Resume || notes[0].Since != 3 {
		t.Fatalf("reconnect notices %+v, want one resuming after 3", notes)
	}
}

// TestWatcherResumesFromTheFirstHeartbeat drops a plain stream of an agent
// with no events yet before any event: the reconnection resumes after
// sequence number 0, from the stream's opening heartbeat, and so delivers
// the events published meanwhile.
func TestWatcherResumesFromTheFirstHeartbeat(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Heartbeat = time.Hour
	a := startAgent(t, fa)
	var notes []Reconnect
	var mu sync.Mutex
	w := &Watcher{Open: a.Events, InitialBackoff: time.Millisecond, MaxAttempts: -1, IdleTimeout: 300 * time.Millisecond,
		Notify: func(r Reconnect) {
			mu.Lock()
			defer mu.Unlock()
			if len(notes) == 0 {
				// The stream went idle; publish before the watcher
				// reconnects.
				fa.Publish(configEvent("ADD", "a"), configEvent("ADD", "b"))
			}
			notes = append(notes, r)
		}}
	c := newCollector()
	runWatcher(t, w, c)
	got := describe(c.await(t, 2))
	if want := []string{"event 1", "event 2"}; !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !notes[0].Resume || notes[0].Since != 0 {
		t.Fatalf("first reconnect %+v, want a resume after 0", notes[0])
	}
	if qs := fa.EventQueries(); len(qs) < 2 || qs[0].Has("since") || qs[1].Get("since") != "0" || qs[1].Get("epoch") != "epoch-1" {
		t.Fatalf("stream queries %v, want a plain stream then since=0 of epoch-1", qs)
	}
}

func TestWatcherReportsEvictedEventsAsGap(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Capacity = 3
	fa.Publish(configEvent("ADD", "a"), configEvent("ADD", "b"))
	fa.DropNextStreamAfter(2)
	a := startAgent(t, fa)
	reopen := make(chan struct{})
	var calls int
	var mu sync.Mutex
	open := func(ctx context.Context, o v1alpha1.EventQuery) (*Stream, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			// Hold the reconnection until the agent evicted events.
			select {
			case <-reopen:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return a.Events(ctx, o)
	}
	w := &Watcher{Open: open, Query: v1alpha1.EventQuery{Since: v1alpha1.SeqMark(0)}, InitialBackoff: time.Millisecond, MaxAttempts: 5}
	c := newCollector()
	runWatcher(t, w, c)
	c.await(t, 2)
	for i := 0; i < 5; i++ { // seqs 3..7; the buffer keeps 5..7
		fa.Publish(configEvent("UPDATE", "a"))
	}
	close(reopen)
	got := describe(c.await(t, 6))
	want := []string{"event 1", "event 2", "gap 3-4", "event 5", "event 6", "event 7"}
	if !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}

func TestWatcherDetectsAgentRestart(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Publish(configEvent("ADD", "a"), configEvent("ADD", "b"))
	a := startAgent(t, fa)
	w := &Watcher{Open: a.Events, Query: v1alpha1.EventQuery{Since: v1alpha1.SeqMark(0)}, InitialBackoff: time.Millisecond, MaxAttempts: 5}
	c := newCollector()
	runWatcher(t, w, c)
	c.await(t, 2)
	fa.Restart() // drops the stream; the new process numbers from 1
	fa.Publish(configEvent("ADD", "c"))
	got := describe(c.await(t, 4))
	want := []string{"event 1", "event 2", "reset 0", "event 1"}
	if qs := fa.EventQueries(); len(qs) < 2 || qs[1].Get("epoch") != "epoch-1" || qs[1].Get("since") != "2" {
		t.Errorf("resume query %v, want since=2 and epoch=epoch-1", qs)
	}
	if !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}

func TestWatcherClientSideHoles(t *testing.T) {
	ev := func(seq uint64) *v1alpha1.StreamMessage {
		return &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: seq}}
	}
	tests := []struct {
		name     string
		filtered bool
		in       []*v1alpha1.StreamMessage
		want     []string
	}{
		{name: "contiguous", in: []*v1alpha1.StreamMessage{ev(1), ev(2), ev(3)}, want: []string{"event 1", "event 2", "event 3"}},
		{name: "duplicates dropped", in: []*v1alpha1.StreamMessage{ev(1), ev(2), ev(2), ev(1), ev(3)}, want: []string{"event 1", "event 2", "event 3"}},
		{name: "hole becomes gap", in: []*v1alpha1.StreamMessage{ev(1), ev(4)}, want: []string{"event 1", "gap 2-3", "event 4"}},
		{name: "hole expected when filtered", filtered: true, in: []*v1alpha1.StreamMessage{ev(1), ev(4)}, want: []string{"event 1", "event 4"}},
		{name: "server gap overlapping delivered", in: []*v1alpha1.StreamMessage{ev(3), {Type: v1alpha1.MessageGap, From: 2, To: 5}, ev(6)}, want: []string{"event 3", "gap 4-5", "event 6"}},
		{name: "stale gap dropped", in: []*v1alpha1.StreamMessage{ev(5), {Type: v1alpha1.MessageGap, From: 2, To: 4}}, want: []string{"event 5"}},
		{name: "heartbeats not delivered", in: []*v1alpha1.StreamMessage{ev(1), {Type: v1alpha1.MessageHeartbeat, Seq: 1}}, want: []string{"event 1"}},
		{name: "heartbeat advances past filtered events", in: []*v1alpha1.StreamMessage{ev(1), {Type: v1alpha1.MessageHeartbeat, Seq: 5}, ev(6)}, want: []string{"event 1", "event 6"}},
		{name: "reset restarts numbering", in: []*v1alpha1.StreamMessage{ev(7), {Type: v1alpha1.MessageReset, Epoch: "b"}, ev(1), ev(2)}, want: []string{"event 7", "reset 0", "event 1", "event 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &tracker{filtered: tc.filtered}
			var got []*v1alpha1.StreamMessage
			for _, m := range tc.in {
				out, _ := tr.accept(m)
				got = append(got, out...)
			}
			if d := describe(got); !equal(d, tc.want) {
				t.Fatalf("got %v, want %v", d, tc.want)
			}
		})
	}
}

func TestWatcherGivesUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	a, err := (&Connector{Via: ViaDirect, AgentURL: srv.URL}).Agent("")
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{Open: a.Events, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxAttempts: 3}
	err = w.Run(context.Background(), func(*v1alpha1.StreamMessage) error { return nil })
	if err == nil {
		t.Fatal("Run returned nil, want an error after 3 attempts")
	}
}

func TestWatcherStopsOnPermanentError(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Served = "v1beta1"
	fa.Version.ServedVersion = "v1beta1"
	a := startAgent(t, fa)
	w := &Watcher{Open: a.Events, InitialBackoff: time.Millisecond, MaxAttempts: 100}
	err := w.Run(context.Background(), func(*v1alpha1.StreamMessage) error { return nil })
	if ReasonOf(err) != ReasonSkew {
		t.Fatalf("Run = %v (%s), want a skew error", err, ReasonOf(err))
	}
}

func TestWatcherIdleTimeout(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Heartbeat = time.Hour
	a := startAgent(t, fa)
	w := &Watcher{Open: a.Events, InitialBackoff: time.Millisecond, MaxAttempts: 2, IdleTimeout: 50 * time.Millisecond}
	err := w.Run(context.Background(), func(*v1alpha1.StreamMessage) error { return nil })
	if !errors.Is(err, ErrIdle) {
		t.Fatalf("Run = %v, want the idle error", err)
	}
	if n := len(fa.EventQueries()); n != 3 {
		t.Fatalf("%d stream requests, want 3", n)
	}
}

// TestWatcherStopsOnASinceAhead resumes after an event the agent never
// had: the agent refuses it, and the watcher says so at once instead of
// retrying or waiting in silence.
func TestWatcherStopsOnASinceAhead(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Publish(configEvent("ADD", "a"), configEvent("ADD", "b"), configEvent("ADD", "c"))
	a := startAgent(t, fa)
	w := &Watcher{Open: a.Events, Query: v1alpha1.EventQuery{Since: v1alpha1.SeqMark(100)}, InitialBackoff: time.Millisecond, MaxAttempts: -1}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c := newCollector()
	err := w.Run(ctx, c.handle)
	if ctx.Err() != nil {
		t.Fatal("the watcher was still waiting after 10s")
	}
	if ReasonOf(err) != ReasonBadRequest || !IsPermanent(err) || !strings.Contains(err.Error(), "last event 3") {
		t.Fatalf("got %v (%s), want a permanent bad request naming the last event", err, ReasonOf(err))
	}
	if len(fa.EventQueries()) != 1 || len(c.msgs) != 0 {
		t.Fatalf("%d stream requests and %d messages, want one request and nothing delivered", len(fa.EventQueries()), len(c.msgs))
	}
}

// TestWatcherEndsAtUntil: a bounded stream's watcher returns nil at the end
// the agent resolved, also when the stream dropped on the way and the
// agent published more since: the resumed stream ends at the same event.
func TestWatcherEndsAtUntil(t *testing.T) {
	fa := fakeagent.New("node-1")
	for range 5 {
		fa.Publish(configEvent("ADD", "p"))
	}
	fa.DropNextStreamAfter(2)
	a := startAgent(t, fa)
	open := func(ctx context.Context, q v1alpha1.EventQuery) (*Stream, error) {
		s, err := a.Events(ctx, q)
		// The agent moves on while the first stream is open.
		fa.Publish(configEvent("UPDATE", "p"))
		return s, err
	}
	w := &Watcher{Open: open, Query: v1alpha1.EventQuery{Tail: 4, Until: v1alpha1.AgeMark(0)}, InitialBackoff: time.Millisecond, MaxAttempts: 5}
	c := newCollector()
	// Run returns on its own; the context only bounds a broken test.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := w.Run(ctx, c.handle); err != nil || ctx.Err() != nil {
		t.Fatalf("Run: %v, context: %v; want the stream's end", err, ctx.Err())
	}
	want := []string{"event 2", "event 3", "event 4", "event 5"}
	if got := describe(c.await(t, 0)); !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if qs := fa.EventQueries(); len(qs) != 2 || qs[1].Get("until") != "5" || qs[1].Get("since") != "3" || qs[1].Get("tail") != "" {
		t.Fatalf("queries %v: want the second to resume after 3 until 5", qs)
	}
}

// TestWatcherAnswerTimeout: a stream that never opens fails Run with
// ErrNoAnswer once AnswerTimeout passes, quoting the last attempt's error.
func TestWatcherAnswerTimeout(t *testing.T) {
	hang := func(ctx context.Context, _ v1alpha1.EventQuery) (*Stream, error) {
		<-ctx.Done()
		return nil, errors.New("dial tcp: i/o timeout")
	}
	// The idle timeout ends the first attempts long before the answer
	// timeout ends Run, however busy the machine: Run's error carries the
	// last attempt's.
	w := &Watcher{Open: hang, AnswerTimeout: 2 * time.Second, IdleTimeout: 10 * time.Millisecond, InitialBackoff: time.Millisecond, MaxAttempts: -1}
	start := time.Now()
	err := w.Run(context.Background(), func(*v1alpha1.StreamMessage) error { return nil })
	if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "no message, not even a heartbeat") {
		t.Fatalf("Run = %v, want ErrNoAnswer with the last error", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Run took %s, want about the answer timeout", took)
	}
}
