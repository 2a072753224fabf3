package serve

import (
	"fmt"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
)

// publishCases publishes the filter cases' events and returns the sequence
// number before them.
func (ta *testAPI) publishCases(t *testing.T) uint64 {
	t.Helper()
	base := ta.ring.LastSeq()
	for i, e := range querytest.Events() {
		if seq := ta.ring.Publish(e); seq != base+uint64(i)+1 {
			t.Fatalf("an event of another was published among the cases' (seq %d, want %d)", seq, base+uint64(i)+1)
		}
	}
	return base
}

// TestStreamFilters runs the shared filter cases against the stream's parser
// and filter, through HTTP.
func TestStreamFilters(t *testing.T) {
	ta := startAPI(t, 1000)
	base := ta.publishCases(t)
	querytest.Run(t, base, func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.Event {
		events, _ := ta.stream(t, "?"+q.Encode().Encode()).ReadToEnd(t)
		return events
	})
}

func TestStreamUntilAndTail(t *testing.T) {
	ta := startAPI(t, 1000)
	base := ta.publishCases(t)
	last := base + uint64(len(querytest.Events()))
	// The cases' last event is an input, which no stream here asks for.
	lastShown := last - 1

	t.Run("until now ends at the last event when the stream opened", func(t *testing.T) {
		s := ta.stream(t, fmt.Sprintf("?since=%d&until=now", base))
		if m := s.Next(t); m.Type != v1alpha1.MessageHeartbeat || m.Seq != base || m.Until == nil || *m.Until != last {
			t.Fatalf("opening message %+v, want a heartbeat at %d until %d", m, base, last)
		}
		ta.publish(1, "default")
		events, end := s.ReadToEnd(t)
		if len(events) != int(lastShown-base) || events[len(events)-1].Seq != lastShown || end.Seq != last {
			t.Fatalf("got %d events to %d, end %+v; want %d to %d, the end at %d", len(events), events[len(events)-1].Seq, end, lastShown-base, lastShown, last)
		}
	})
	t.Run("a tail and until now, without since", func(t *testing.T) {
		now := ta.ring.LastSeq()
		events, end := ta.stream(t, "?tail=3&until=now").ReadToEnd(t)
		if len(events) != 3 || events[2].Seq != now || end.Seq != now {
			t.Fatalf("got %v, end %+v; want the 3 events to %d", events, end, now)
		}
	})
	t.Run("until a later sequence number follows to it", func(t *testing.T) {
		now := ta.ring.LastSeq()
		s := ta.stream(t, fmt.Sprintf("?until=%d", now+2))
		if m := s.Next(t); m.Type != v1alpha1.MessageHeartbeat || m.Seq != now || m.Until == nil || *m.Until != now+2 {
			t.Fatalf("opening message %+v", m)
		}
		ta.publish(3, "default")
		events, end := s.ReadToEnd(t)
		if len(events) != 2 || events[1].Seq != now+2 || end.Seq != now+2 {
			t.Fatalf("got %v, end %+v; want events %d and %d", events, end, now+1, now+2)
		}
	})
	t.Run("an until already passed ends at once", func(t *testing.T) {
		events, end := ta.stream(t, fmt.Sprintf("?since=%d&until=%d", last, base)).ReadToEnd(t)
		if len(events) != 0 || end.Seq != base {
			t.Fatalf("got %v, end %+v", events, end)
		}
	})
	t.Run("a tail, then the stream follows", func(t *testing.T) {
		s := ta.stream(t, "?tail=1&kind=pleg")
		if m := s.Next(t); m.Type != v1alpha1.MessageHeartbeat {
			t.Fatalf("opening message %+v", m)
		}
		if m := s.NextOf(t); m.Event == nil || m.Event.Seq != lastShown || m.Event.Type != "PodSync" {
			t.Fatalf("tail: %+v, want event %d", m, lastShown)
		}
		seq := ta.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", Namespace: "default"})
		if m := s.NextOf(t); m.Event == nil || m.Event.Seq != seq {
			t.Fatalf("after the tail: %+v, want event %d", m, seq)
		}
	})
}
