package agent

import (
	"testing"
	"time"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func seqs(evs []*api.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func TestHubRead(t *testing.T) {
	tests := []struct {
		name              string
		capacity, publish int
		after             uint64
		max               int
		want              []uint64
		missFrom, missTo  uint64
	}{
		{name: "empty hub", capacity: 4, after: 0, max: 10},
		{name: "everything", capacity: 4, publish: 3, after: 0, max: 10, want: []uint64{1, 2, 3}},
		{name: "resume in the middle", capacity: 4, publish: 3, after: 1, max: 10, want: []uint64{2, 3}},
		{name: "caught up", capacity: 4, publish: 3, after: 3, max: 10},
		{name: "limited batch", capacity: 8, publish: 6, after: 0, max: 2, want: []uint64{1, 2}},
		{name: "evicted events are reported", capacity: 4, publish: 10, after: 2, max: 10, want: []uint64{7, 8, 9, 10}, missFrom: 3, missTo: 6},
		{name: "cursor just inside the ring", capacity: 4, publish: 10, after: 6, max: 10, want: []uint64{7, 8, 9, 10}},
		{name: "cursor ahead of the hub", capacity: 4, publish: 2, after: 5, max: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHub(tt.capacity, "e", nil)
			for range tt.publish {
				h.Publish(api.Event{Kind: api.EventKindConfig})
			}
			b := h.Read(tt.after, tt.max)
			if got := seqs(b.Events); len(got) != len(tt.want) || (len(got) > 0 && (got[0] != tt.want[0] || got[len(got)-1] != tt.want[len(tt.want)-1])) {
				t.Fatalf("read %v, want %v", got, tt.want)
			}
			if b.MissedFrom != tt.missFrom || b.MissedTo != tt.missTo {
				t.Fatalf("missed %d..%d, want %d..%d", b.MissedFrom, b.MissedTo, tt.missFrom, tt.missTo)
			}
		})
	}
}

func TestHubWakesReaders(t *testing.T) {
	h := NewHub(4, "e", nil)
	b := h.Read(0, 10)
	done := make(chan struct{})
	go func() {
		<-b.Wake
		close(done)
	}()
	h.Publish(api.Event{Kind: api.EventKindPLEG})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a reader waiting on Wake was not woken by Publish")
	}
}

func TestHubSeqAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := now
	h := NewHub(10, "e", func() time.Time { return clock })
	for range 5 {
		h.Publish(api.Event{})
		clock = clock.Add(time.Minute)
	}
	if got := h.SeqAt(now.Add(150 * time.Second)); got != 3 {
		t.Fatalf("SeqAt = %d, want 3 (events 4 and 5 are at or after the time)", got)
	}
	if got := h.SeqAt(now.Add(-time.Hour)); got != 0 {
		t.Fatalf("SeqAt before everything = %d, want 0", got)
	}
	if got := h.SeqAt(now.Add(time.Hour)); got != 5 {
		t.Fatalf("SeqAt after everything = %d, want 5", got)
	}
}
