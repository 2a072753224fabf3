package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

// publish puts n config events from source "api" into the API's ring.
func (ta *testAPI) publish(n int, namespace string) uint64 {
	return servetest.Publish(ta.ring, n, namespace)
}

func TestStreamReportsEvictedEventsAsAGap(t *testing.T) {
	tests := []struct {
		name string
		// query returns the stream's query and the first evicted event it
		// asked for, given the last event before the test's own.
		query func(base uint64) (string, uint64)
	}{
		{name: "since a sequence number", query: func(base uint64) (string, uint64) { return fmt.Sprintf("?since=%d", base), base + 1 }},
		// An hour ago is before the agent started: every evicted event,
		// from the first, was asked for.
		{name: "since a duration", query: func(uint64) (string, uint64) { return "?since=1h", 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := startAPI(t, 5)
			base := ta.ring.LastSeq()
			last := ta.publish(10, "default")
			query, from := tt.query(base)
			s := ta.stream(t, query)
			m := s.NextOf(t)
			if m.Type != v1alpha1.MessageGap || m.From != from || m.To != last-5 {
				t.Fatalf("got %+v, want a gap %d..%d", m, from, last-5)
			}
			for seq := last - 4; seq <= last; seq++ {
				if m := s.NextOf(t); m.Event == nil || m.Event.Seq != seq {
					t.Fatalf("got %+v, want event %d", m, seq)
				}
			}
		})
	}
}

func TestStreamResetAfterAgentRestart(t *testing.T) {
	ta := startAPI(t, 100)
	ta.publish(2, "default")
	s := ta.stream(t, "?since=500&epoch=an-older-agent")
	if m := s.Next(t); m.Type != v1alpha1.MessageReset || m.Epoch != ta.ring.Epoch() {
		t.Fatalf("got %+v, want a reset", m)
	}
	if m := s.NextOf(t); m.Event == nil || m.Event.Seq != 1 {
		t.Fatalf("got %+v, want the new agent's first event", m)
	}
}

// TestStreamRefusesASinceAhead answers a since ahead of the agent's last
// event, in its epoch or with none, with a 400 naming the last event; in
// another epoch it is a restart's reset.
func TestStreamRefusesASinceAhead(t *testing.T) {
	ta := startAPI(t, 100)
	last := ta.publish(2, "default")
	tests := []struct {
		name  string
		query string
		want  int
	}{
		{name: "ahead, no epoch", query: fmt.Sprintf("since=%d", last+1), want: http.StatusBadRequest},
		{name: "ahead, this epoch", query: fmt.Sprintf("since=%d&epoch=%s", last+100, ta.ring.Epoch()), want: http.StatusBadRequest},
		{name: "the last event", query: fmt.Sprintf("since=%d&epoch=%s", last, ta.ring.Epoch()), want: http.StatusOK},
		{name: "ahead, another epoch", query: fmt.Sprintf("since=%d&epoch=older", last+100), want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(ta.url + "/api/v1alpha1/events?" + tt.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("answered %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want != http.StatusBadRequest {
				return
			}
			var st v1alpha1.Status
			if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(st.Message, fmt.Sprintf("last event %d (epoch %s)", last, ta.ring.Epoch())) {
				t.Fatalf("message %q does not name the last event", st.Message)
			}
		})
	}
}

// TestStreamCarriesEventsLargerThanItsBuffer mixes small events with ones
// whose lines are larger than a stream buffers (a SET of thousands of pods)
// and with a filter that rewrites an event: each arrives whole, in order.
func TestStreamCarriesEventsLargerThanItsBuffer(t *testing.T) {
	ta := startAPI(t, 100)
	big := func(namespace string, n int) v1alpha1.Event {
		e := v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "SET", Source: "api"}
		for i := range n {
			e.Pods = append(e.Pods, v1alpha1.PodRef{Name: fmt.Sprintf("pod-%05d", i), Namespace: namespace, UID: types.UID(fmt.Sprintf("uid-%05d", i))})
		}
		return e
	}
	// Events with pods of both namespaces are rewritten by a namespace
	// filter to those of the one asked for.
	mixed := big("default", 3000)
	mixed.Pods = append(mixed.Pods, big("kube-system", 2).Pods...)
	events := []v1alpha1.Event{big("default", 1), big("default", 3000), big("default", 2), mixed, big("default", 4000), big("default", 1)}
	for _, tt := range []struct{ name, query string }{
		{name: "no filter"},
		{name: "namespace filter", query: "&namespace=default"},
	} {
		query := tt.query
		t.Run(tt.name, func(t *testing.T) {
			s := ta.stream(t, fmt.Sprintf("?since=%d%s", ta.ring.LastSeq(), query))
			first := ta.ring.LastSeq() + 1
			for _, e := range events {
				ta.ring.Publish(e)
			}
			for i, e := range events {
				m := s.NextOf(t)
				want := len(e.Pods)
				if query != "" && i == 3 {
					want -= 2
				}
				if m.Event == nil || m.Event.Seq != first+uint64(i) || len(m.Event.Pods) != want {
					t.Fatalf("message %d: got %s with %v, want event %d with %d pods", i, m.Type, m.Event != nil, first+uint64(i), want)
				}
			}
		})
	}
}
