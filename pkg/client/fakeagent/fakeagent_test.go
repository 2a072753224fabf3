package fakeagent

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
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

// TestPodFilters runs the shared pod cases against the fake agent, as the
// agent's tests run them against the agent, and its bad queries.
func TestPodFilters(t *testing.T) {
	a := New("node-1")
	a.Pods.Items = querytest.Pods()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	get := func(t *testing.T, query string) (int, []byte) {
		a := servetest.Do(t, http.MethodGet, srv.URL+v1alpha1.PodsPath+"?"+query)
		return a.Code, a.Body
	}
	querytest.RunPods(t, func(t *testing.T, q v1alpha1.PodQuery) []v1alpha1.PodInfo {
		code, body := get(t, q.Encode().Encode())
		var l v1alpha1.PodList
		if err := json.Unmarshal(body, &l); err != nil || code != http.StatusOK {
			t.Fatalf("status %d, %v: %s", code, err, body)
		}
		return l.Items
	})
	for _, c := range querytest.BadPodQueries {
		t.Run(c.Name, func(t *testing.T) {
			code, body := get(t, c.Query)
			var st v1alpha1.Status
			if err := json.Unmarshal(body, &st); err != nil || code != http.StatusBadRequest || !strings.Contains(st.Message, c.Want) {
				t.Fatalf("?%s answered %d %s; want 400 with %q", c.Query, code, body, c.Want)
			}
		})
	}
}

// TestSnapshotFilters runs the shared snapshot cases against the fake
// agent, as the agent's tests run them against the agent.
func TestSnapshotFilters(t *testing.T) {
	a := New("node-1")
	a.Pods.Items = querytest.Pods()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	snapshot := func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.PodInfo {
		resp, err := http.Get(srv.URL + v1alpha1.EventsPath + "?" + q.Encode().Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var m v1alpha1.StreamMessage
		if !sc.Scan() {
			t.Fatalf("status %d, no message: %v", resp.StatusCode, sc.Err())
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil {
			t.Fatalf("the stream opened with %s (%v), want a snapshot", sc.Text(), err)
		}
		return m.Snapshot.Items
	}
	querytest.RunSnapshots(t, snapshot)
}
