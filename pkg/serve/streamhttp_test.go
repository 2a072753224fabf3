package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

func TestStreamResumeSnapshotAndFilters(t *testing.T) {
	ts := startServer(t, func(c *serverConfig) {
		c.State = func(ring *eventring.Ring) State {
			return podsState{ring: ring, pods: []v1alpha1.PodInfo{{Name: "web-node-1", Namespace: "default", UID: "uid-web"}}}
		}
	})

	t.Run("resume after a sequence number", func(t *testing.T) {
		last := ts.ring.LastSeq()
		ts.publish(3, "default")
		s := ts.stream(t, fmt.Sprintf("?since=%d", last+1))
		for _, want := range []uint64{last + 2, last + 3} {
			if m := s.NextOf(t); m.Type != v1alpha1.MessageEvent || m.Event.Seq != want {
				t.Fatalf("got %+v, want event %d", m, want)
			}
		}
	})
	t.Run("a plain stream starts now", func(t *testing.T) {
		s := ts.stream(t, "")
		last := ts.publish(1, "default")
		if m := s.NextOf(t); m.Event == nil || m.Event.Seq != last {
			t.Fatalf("got %+v, want event %d", m, last)
		}
	})
	t.Run("snapshot then the events after it", func(t *testing.T) {
		s := ts.stream(t, "?snapshot=true")
		m := s.Next(t)
		if m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil || len(m.Snapshot.Items) != 1 || m.Snapshot.Items[0].Name != "web-node-1" || m.Seq != ts.ring.LastSeq() {
			t.Fatalf("snapshot: %+v", m)
		}
		last := ts.publish(1, "default")
		if n := s.NextOf(t); n.Event == nil || n.Event.Seq != last || last != m.Seq+1 {
			t.Fatalf("after the snapshot at %d: %+v", m.Seq, n)
		}
	})
	t.Run("filters", func(t *testing.T) {
		start := ts.ring.LastSeq()
		ts.publish(1, "other")
		ts.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", Namespace: "default"})
		ts.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "UPDATE", Source: "file", Pods: []v1alpha1.PodRef{{Name: "a", Namespace: "default"}, {Name: "b", Namespace: "other"}}})
		tests := []struct {
			query string
			want  []string
		}{
			{query: "&kind=pleg", want: []string{"ContainerStarted"}},
			{query: "&kind=config", want: []string{"ADD", "UPDATE"}},
			{query: "&source=file", want: []string{"UPDATE"}},
			{query: "&namespace=default", want: []string{"ContainerStarted", "UPDATE"}},
		}
		for _, tt := range tests {
			t.Run(tt.query, func(t *testing.T) {
				s := ts.stream(t, fmt.Sprintf("?since=%d%s", start, tt.query))
				for _, want := range tt.want {
					m := s.NextOf(t)
					got := m.Event.Op + m.Event.Type
					if got != want {
						t.Fatalf("got %s, want %s", got, want)
					}
					if tt.query == "&namespace=default" && m.Event.Kind == v1alpha1.EventKindConfig && len(m.Event.Pods) != 1 {
						t.Fatalf("namespace filter kept %+v", m.Event.Pods)
					}
				}
			})
		}
	})
	t.Run("heartbeat", func(t *testing.T) {
		s := ts.stream(t, "")
		if m := s.Next(t); m.Type != v1alpha1.MessageHeartbeat || m.Seq != ts.ring.LastSeq() || m.Epoch != ts.ring.Epoch() {
			t.Fatalf("got %+v, want a heartbeat", m)
		}
	})
	t.Run("bad queries", func(t *testing.T) {
		for _, q := range []string{"since=yesterday", "kind=all", "source=etcd", "snapshot=maybe", "namespace=Not_A_Name"} {
			if a := servetest.Do(t, http.MethodGet, ts.url+"/api/v1alpha1/events?"+q); a.Code != http.StatusBadRequest {
				t.Errorf("%s answered %d", q, a.Code)
			}
		}
	})
}

// TestManyStreamsOneStuck runs 100 streams, one of which never reads: the
// others get every event in order while publishing goes on, and the stuck
// one is cut off.
func TestManyStreamsOneStuck(t *testing.T) {
	const readers, events, batch = 99, 2000, 200
	// Every stream comes from 127.0.0.1: one peer, allowed them all here.
	ts := startServer(t, func(c *serverConfig) { c.Buffer = 1000; c.Limits.MaxStreamsPerPeer = c.Limits.MaxStreams })
	ts.api.StreamWriteTimeout = 5 * time.Second
	start := ts.ring.LastSeq()

	// The stuck client sends its request and never reads the answer.
	u, _ := url.Parse(ts.url)
	stuck, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	if tcp, ok := stuck.(*net.TCPConn); ok {
		_ = tcp.SetReadBuffer(4096)
	}
	fmt.Fprintf(stuck, "GET /api/v1alpha1/events?since=%d HTTP/1.1\r\nHost: %s\r\n\r\n", start, u.Host)

	var mu sync.Mutex
	progress := make([]uint64, readers)
	errs := make(chan error, readers)
	var wg sync.WaitGroup
	var bodies []io.Closer
	for i := range readers {
		resp, err := http.Get(fmt.Sprintf("%s/api/v1alpha1/events?since=%d", ts.url, start))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
		wg.Go(func() {
			sc := bufio.NewScanner(resp.Body)
			want := start + 1
			for want <= start+events && sc.Scan() {
				var m v1alpha1.StreamMessage
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					errs <- err
					return
				}
				if m.Type == v1alpha1.MessageHeartbeat {
					continue
				}
				if m.Type != v1alpha1.MessageEvent || m.Event.Seq != want {
					errs <- fmt.Errorf("reader %d: got %s %v, want event %d", i, m.Type, m.Event, want)
					return
				}
				mu.Lock()
				progress[i] = want
				mu.Unlock()
				want++
			}
			if want <= start+events {
				errs <- fmt.Errorf("reader %d: stream ended before event %d: %v", i, want, sc.Err())
			}
		})
	}
	waitFor(t, "all streams open", func() bool { return ts.api.Metrics.subscribersValue() == readers+1 })

	// readersAt returns the least and the total progress of the readers,
	// failing the test on a reader's error.
	readersAt := func() (least, total uint64) {
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		mu.Lock()
		defer mu.Unlock()
		least = progress[0]
		for _, p := range progress {
			least = min(least, p)
			total += p
		}
		return least, total
	}
	for sent := 0; sent < events; sent += batch {
		// Publish never waits for a stream: a stuck one cannot hold it.
		last := ts.publish(batch, "default")
		// Readers that keep up stay within the buffer. On a loaded machine
		// 99 readers take their time; only readers that stop reading for
		// waitLimit fail the test.
		deadline := time.Now().Add(waitLimit)
		for least, total := readersAt(); least < last; {
			if time.Now().After(deadline) {
				t.Fatalf("readers made no progress for %v; the slowest is at %d, want %d", waitLimit, least, last)
			}
			time.Sleep(20 * time.Millisecond)
			var now uint64
			if least, now = readersAt(); now > total {
				total, deadline = now, time.Now().Add(waitLimit)
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, r := range bodies {
		r.Close()
	}
	// The stuck stream holds no more than its socket buffers: once they are
	// full, its write times out and the API closes it, while publishing
	// goes on undisturbed.
	waitFor(t, "the stuck stream to be cut off", func() bool {
		ts.publish(500, "default")
		return ts.api.Metrics.subscribersValue() == 0
	})
}

// heldWriter is a stream's ResponseWriter whose writes the test can hold, as
// a client that stops reading holds them, and which keeps what it was given.
type heldWriter struct {
	header http.Header
	hold   chan struct{} // while not nil, a write waits for it to close
	held   chan struct{} // a write that starts waiting says so here
	mu     sync.Mutex
	body   []byte
}

func (w *heldWriter) Header() http.Header { return w.header }
func (w *heldWriter) WriteHeader(int)     {}
func (w *heldWriter) Flush()              {}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	hold := w.hold
	w.mu.Unlock()
	if hold != nil {
		w.held <- struct{}{}
		<-hold
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.body = append(w.body, p...)
	return len(p), nil
}

// messages returns what the stream wrote, decoded.
func (w *heldWriter) messages(t *testing.T) []v1alpha1.StreamMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []v1alpha1.StreamMessage
	dec := json.NewDecoder(bytes.NewReader(w.body))
	for dec.More() {
		var m v1alpha1.StreamMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("decoding the stream: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// TestStreamThatFallsBehindIsToldAndClosed holds a stream's write while more
// events than the buffer keeps are published: when the write returns, the
// stream's next events are gone, so it is told it is lagging and closed
// rather than given a silent hole.
func TestStreamThatFallsBehindIsToldAndClosed(t *testing.T) {
	const buffer = 5
	ts := startServer(t, func(c *serverConfig) { c.Buffer = buffer; c.Heartbeat = time.Hour })
	w := &heldWriter{header: http.Header{}, held: make(chan struct{})}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		ts.api.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v1alpha1/events", nil))
	}()
	waitFor(t, "the stream's first message", func() bool { return len(w.messages(t)) == 1 })
	start := w.messages(t)[0].Seq

	release := make(chan struct{})
	w.mu.Lock()
	w.hold = release
	w.mu.Unlock()
	first := ts.publish(1, "default")
	select {
	case <-w.held:
	case <-time.After(waitLimit):
		t.Fatal("the stream did not write the event")
	}
	w.mu.Lock()
	w.hold = nil
	w.mu.Unlock()
	ts.publish(buffer+10, "default")
	close(release)
	select {
	case <-ended:
	case <-time.After(waitLimit):
		t.Fatal("the stream that fell behind was not closed")
	}

	msgs := w.messages(t)
	want := []string{
		fmt.Sprintf("%s seq=%d", v1alpha1.MessageHeartbeat, start),
		fmt.Sprintf("%s seq=%d", v1alpha1.MessageEvent, first),
		fmt.Sprintf("%s seq=%d", v1alpha1.MessageLagging, first),
	}
	var got []string
	for _, m := range msgs {
		seq := m.Seq
		if m.Event != nil {
			seq = m.Event.Seq
		}
		got = append(got, fmt.Sprintf("%s seq=%d", m.Type, seq))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the stream wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a := servetest.Do(t, http.MethodGet, ts.url+"/metrics"); !strings.Contains(string(a.Body), "podsrc_stream_lagging_total 1\n") {
		t.Errorf("/metrics does not count the lagging stream:\n%s", a.Body)
	}
}
