package fakeagent

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
)

// TestStreamFilters runs the shared filter cases against the fake agent, as
// the agent's tests run them against the agent.
func TestStreamFilters(t *testing.T) {
	a := New("node-1")
	a.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpAdd, Source: v1alpha1.SourceFile})
	base := a.Publish(querytest.Events()...) - uint64(len(querytest.Events()))
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	querytest.Run(t, base, func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.Event {
		resp, err := http.Get(srv.URL + v1alpha1.EventsPath + "?" + q.Encode().Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		var events []v1alpha1.Event
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var m v1alpha1.StreamMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			switch m.Type {
			case v1alpha1.MessageEvent:
				events = append(events, *m.Event)
			case v1alpha1.MessageEnd:
				if sc.Scan() {
					t.Fatalf("the stream went on after its end: %s", sc.Text())
				}
				return events
			}
		}
		t.Fatalf("the stream ended without an end message: %v", sc.Err())
		return nil
	})
}
