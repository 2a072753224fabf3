// Package servetest reads the answers and event streams of a serve.API in
// tests: the agent's, served whole, serve's own test API and the fake
// agent's.
package servetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// Stream reads one event stream line by line.
type Stream struct {
	sc *bufio.Scanner
}

// OpenStream opens the event stream at url, closed when the test ends; an
// answer other than 200 fails the test.
func OpenStream(t testing.TB, url string) *Stream {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream %s: %d %s", url, resp.StatusCode, body)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &Stream{sc: sc}
}

// Next returns the next message, failing the test at the end of the
// stream. A stuck stream is cut by the test's timeout.
func (s *Stream) Next(t testing.TB) v1alpha1.StreamMessage {
	t.Helper()
	if !s.sc.Scan() {
		t.Fatalf("stream ended: %v", s.sc.Err())
	}
	var m v1alpha1.StreamMessage
	if err := json.Unmarshal(s.sc.Bytes(), &m); err != nil {
		t.Fatalf("bad stream line %q: %v", s.sc.Text(), err)
	}
	return m
}

// NextOf returns the next message that is not a heartbeat.
func (s *Stream) NextOf(t testing.TB) v1alpha1.StreamMessage {
	t.Helper()
	for {
		if m := s.Next(t); m.Type != v1alpha1.MessageHeartbeat {
			return m
		}
	}
}

// ReadToEnd returns the events of the stream up to its end message, and
// that message; anything after it fails the test.
func (s *Stream) ReadToEnd(t testing.TB) (events []v1alpha1.Event, end v1alpha1.StreamMessage) {
	t.Helper()
	for {
		m := s.NextOf(t)
		switch m.Type {
		case v1alpha1.MessageEvent:
			events = append(events, *m.Event)
		case v1alpha1.MessageEnd:
			if s.sc.Scan() {
				t.Fatalf("the stream went on after its end: %s", s.sc.Text())
			}
			return events, m
		default:
			t.Fatalf("unexpected message %+v", m)
		}
	}
}

// Publish puts n config events of source api into ring, each with one pod
// of namespace, and returns the sequence number of the last.
func Publish(ring *eventring.Ring, n int, namespace string) uint64 {
	var last uint64
	for i := range n {
		last = ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: v1alpha1.SourceAPI,
			Pods: []v1alpha1.PodRef{{Name: fmt.Sprint("p", i), Namespace: namespace, UID: "u"}}})
	}
	return last
}
