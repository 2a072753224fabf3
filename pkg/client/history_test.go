package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

func TestHistory(t *testing.T) {
	tests := []struct {
		name      string
		published int
		capacity  int
		want      []uint64
		missed    bool
	}{
		{name: "no events", published: 0, capacity: 10},
		{name: "every event", published: 3, capacity: 10, want: []uint64{1, 2, 3}},
		{name: "the events the agent still holds, after a gap", published: 5, capacity: 2, want: []uint64{4, 5}, missed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa := fakeagent.New("node-1")
			fa.Capacity = tc.capacity
			for i := 0; i < tc.published; i++ {
				fa.Publish(configEvent("ADD", "p"))
			}
			a := startAgent(t, fa)
			evs, missed, err := a.History(context.Background(), v1alpha1.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, ev := range evs {
				got = append(got, ev.Seq)
			}
			if !slices.Equal(got, tc.want) || missed != tc.missed {
				t.Fatalf("history %v, missed %v; want %v, %v", got, missed, tc.want, tc.missed)
			}
		})
	}
}

func TestHistoryOfAnAgentThatIsNotOne(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Served = "v9"
	_, _, err := startAgent(t, fa).History(context.Background(), v1alpha1.EventQuery{})
	if err == nil || !strings.Contains(err.Error(), "upgrade") {
		t.Fatalf("error %v, want the skew named", err)
	}
}

// TestHistoryOfAnAgentThatNeverReachesItsLast: an agent whose history
// stream repeats an event below its last one forever makes History fail,
// naming the node, once it has read maxHistory events.
func TestHistoryOfAnAgentThatNeverReachesItsLast(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Publish(configEvent("ADD", "p"), configEvent("ADD", "q"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != v1alpha1.EventsPath || !r.URL.Query().Has("since") {
			fa.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		// It opens as an agent that ends its stream at --until does.
		until := uint64(2)
		if err := enc.Encode(v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat, Until: &until}); err != nil {
			return
		}
		for r.Context().Err() == nil {
			ev := configEvent("ADD", "p")
			ev.Seq = 1
			if err := enc.Encode(v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &ev}); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	c := &Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute}
	a, err := c.Agent("")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = a.History(context.Background(), v1alpha1.EventQuery{})
	if ReasonOf(err) != ReasonTooLarge || !strings.Contains(err.Error(), "more than 40000 events") || !strings.Contains(err.Error(), "--agent-url="+srv.URL) {
		t.Fatalf("error %v, want one that says the history is too long and names the agent", err)
	}
}
