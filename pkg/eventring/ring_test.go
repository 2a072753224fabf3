package eventring

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func seqs(evs []*v1alpha1.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func TestRingRead(t *testing.T) {
	tests := []struct {
		name              string
		capacity, publish int
		after             uint64
		max               int
		want              []uint64
		missFrom, missTo  uint64
	}{
		{name: "empty ring", capacity: 4, after: 0, max: 10},
		{name: "everything", capacity: 4, publish: 3, after: 0, max: 10, want: []uint64{1, 2, 3}},
		{name: "resume in the middle", capacity: 4, publish: 3, after: 1, max: 10, want: []uint64{2, 3}},
		{name: "caught up", capacity: 4, publish: 3, after: 3, max: 10},
		{name: "limited batch", capacity: 8, publish: 6, after: 0, max: 2, want: []uint64{1, 2}},
		{name: "evicted events are reported", capacity: 4, publish: 10, after: 2, max: 10, want: []uint64{7, 8, 9, 10}, missFrom: 3, missTo: 6},
		{name: "cursor just inside the ring", capacity: 4, publish: 10, after: 6, max: 10, want: []uint64{7, 8, 9, 10}},
		{name: "cursor ahead of the ring", capacity: 4, publish: 2, after: 5, max: 10},
	}
	// One batch serves every case, as one serves a stream's reads: nothing
	// of an earlier read may show in a later one.
	var b Batch
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.capacity, nil)
			for range tt.publish {
				r.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig})
			}
			r.Read(&b, tt.after, tt.max)
			if got := seqs(b.Events); !slices.Equal(got, tt.want) {
				t.Fatalf("read %v, want %v", got, tt.want)
			}
			if b.MissedFrom != tt.missFrom || b.MissedTo != tt.missTo {
				t.Fatalf("missed %d..%d, want %d..%d", b.MissedFrom, b.MissedTo, tt.missFrom, tt.missTo)
			}
		})
	}
}

func TestRingWakesReaders(t *testing.T) {
	r := New(4, nil)
	var b Batch
	r.Read(&b, 0, 10)
	done := make(chan struct{})
	go func() {
		<-b.Wake
		close(done)
	}()
	r.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a reader waiting on Wake was not woken by Publish")
	}
}

func TestRingSeqAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// ringAt publishes one event at each offset from now into a ring of the
	// capacity; event i+1 is at offsets[i].
	ringAt := func(capacity int, offsets ...time.Duration) *Ring {
		r := New(capacity, nil)
		for _, off := range offsets {
			r.Publish(v1alpha1.Event{Time: metav1.NewMicroTime(now.Add(off))})
		}
		return r
	}
	minutes := func(n int) []time.Duration {
		var out []time.Duration
		for i := range n {
			out = append(out, time.Duration(i)*time.Minute)
		}
		return out
	}
	seconds := func(n int) []time.Duration {
		var out []time.Duration
		for i := range n {
			out = append(out, time.Duration(i)*time.Second)
		}
		return out
	}
	tests := []struct {
		name string
		ring *Ring
		at   time.Duration
		want uint64
	}{
		{name: "empty ring", ring: ringAt(10), at: 0, want: 0},
		{name: "between kept events", ring: ringAt(10, minutes(5)...), at: 150 * time.Second, want: 3},
		{name: "before everything, nothing evicted", ring: ringAt(10, minutes(5)...), at: -time.Hour, want: 0},
		{name: "after everything", ring: ringAt(10, minutes(5)...), at: time.Hour, want: 5},
		// Events 1-6 (minutes 0-5) are evicted, 7-10 (minutes 6-9) kept.
		{name: "among kept events after an eviction", ring: ringAt(4, minutes(10)...), at: 7*time.Minute + 30*time.Second, want: 8},
		{name: "at the oldest kept event", ring: ringAt(4, minutes(10)...), at: 6 * time.Minute, want: 6},
		{name: "among evicted events", ring: ringAt(4, minutes(10)...), at: 3*time.Minute + 30*time.Second, want: 4},
		{name: "before every evicted event", ring: ringAt(4, minutes(10)...), at: -time.Hour, want: 0},
		// Evicted events are remembered by the second: events 1 and 2,
		// before the time but in its second, are counted as missed too.
		{name: "within an evicted second", ring: ringAt(2, 0, 100*time.Millisecond, 900*time.Millisecond, 2*time.Second, 3*time.Second), at: 500 * time.Millisecond, want: 0},
		// Times out of sequence order, as a PLEG event's relist time is:
		// event 1 (5.5 s) is evicted, and though the oldest kept (event
		// 2, 5 s) is before the time, event 1 was after it.
		{name: "evicted event after the time, kept one before", ring: ringAt(2, 5500*time.Millisecond, 5*time.Second, 6*time.Second), at: 5200 * time.Millisecond, want: 0},
		{name: "evicted events before the time, kept ones out of order", ring: ringAt(2, 4*time.Second, 7*time.Second, 5*time.Second), at: 6 * time.Second, want: 1},
		// One event evicted per second for longer than the marks last: the
		// oldest ones are forgotten, so a time among them reports every
		// evicted event as possibly missed; later ones are still exact.
		{name: "older than the remembered evictions", ring: ringAt(1, seconds(maxEvictionMarks+10)...), at: 5 * time.Second, want: 0},
		// Of the maxEvictionMarks+9 evicted events (seconds 0 to
		// maxEvictionMarks+8) the marks keep the last maxEvictionMarks,
		// from second 9: a time at or before that oldest remembered second
		// is a whole gap too, as the package comment says.
		{name: "at the oldest remembered eviction", ring: ringAt(1, seconds(maxEvictionMarks+10)...), at: 9 * time.Second, want: 0},
		{name: "just after the oldest remembered eviction", ring: ringAt(1, seconds(maxEvictionMarks+10)...), at: 10 * time.Second, want: 10},
		{name: "among the remembered evictions", ring: ringAt(1, seconds(maxEvictionMarks+10)...), at: 100 * time.Second, want: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ring.SeqAt(now.Add(tt.at)); got != tt.want {
				t.Fatalf("SeqAt(now%+v) = %d, want %d", tt.at, got, tt.want)
			}
		})
	}
}
