package eventring

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// sinkFunc is a Sink.
type sinkFunc func(e *v1alpha1.Event, line []byte)

func (f sinkFunc) Append(e *v1alpha1.Event, line []byte) { f(e, line) }

// kept returns the events from..to of an earlier process, a second apart
// from t0, with their lines.
func kept(epoch string, t0 time.Time, from, to uint64) Batch {
	var b Batch
	for seq := from; seq <= to; seq++ {
		e := v1alpha1.Event{Seq: seq, Kind: v1alpha1.EventKindConfig, Time: metav1.NewMicroTime(t0.Add(time.Duration(seq) * time.Second))}
		b.Events = append(b.Events, &e)
		b.Lines = append(b.Lines, encodeLine(epoch, e))
	}
	return b
}

func TestRestoreContinuesTheNumbering(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0.Add(time.Hour) }
	tests := []struct {
		name     string
		capacity int
		// from..to are the events kept, last the last number given.
		from, to, last uint64
		wantFirst      uint64
	}{
		{name: "all kept", capacity: 10, from: 1, to: 6, last: 6, wantFirst: 1},
		{name: "older ones in the journal only", capacity: 10, from: 4, to: 9, last: 9, wantFirst: 4},
		{name: "more than the ring holds", capacity: 3, from: 1, to: 9, last: 9, wantFirst: 7},
		{name: "none kept", capacity: 3, from: 1, to: 0, last: 12, wantFirst: 0},
		// After an unclean stop the numbering skips what the killed
		// process may have served unstored: the ring holds none of the
		// stored ones, which stay the journal's.
		{name: "numbers skipped after the newest kept", capacity: 10, from: 1, to: 6, last: 6 + 1000, wantFirst: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewWithEpoch(tt.capacity, "journal", now)
			last := tt.last
			r.Restore(kept("journal", t0, tt.from, tt.to), last)
			var sunk []uint64
			r.SetSink(sinkFunc(func(e *v1alpha1.Event, line []byte) {
				if !slices.Equal(line, encodeLine("journal", *e)) {
					t.Errorf("sink got line %q for event %d", line, e.Seq)
				}
				sunk = append(sunk, e.Seq)
			}))
			if r.LastSeq() != last || r.FirstSeq() != tt.wantFirst {
				t.Fatalf("last %d, first %d; want %d, %d", r.LastSeq(), r.FirstSeq(), last, tt.wantFirst)
			}
			var b Batch
			r.Read(&b, 0, 100)
			var want []uint64
			if tt.wantFirst != 0 {
				for s := tt.wantFirst; s <= last; s++ {
					want = append(want, s)
				}
			}
			wantMissTo := last
			if tt.wantFirst != 0 {
				wantMissTo = tt.wantFirst - 1
			}
			if got := seqs(b.Events); !slices.Equal(got, want) || b.MissedTo != wantMissTo || (wantMissTo != 0 && b.MissedFrom != 1) {
				t.Fatalf("read %v missing %d-%d, want %v missing 1-%d", got, b.MissedFrom, b.MissedTo, want, wantMissTo)
			}
			// A time before the oldest kept may have been among the older
			// events: it starts before them, to report them missed.
			if at := r.SeqAt(t0); wantMissTo != 0 && at != 0 {
				t.Fatalf("SeqAt(before the oldest) = %d, want 0", at)
			}
			if seq := r.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG}); seq != last+1 {
				t.Fatalf("published %d, want %d", seq, last+1)
			}
			if !slices.Equal(sunk, []uint64{last + 1}) {
				t.Fatalf("sink got %v, want only the published %d", sunk, last+1)
			}
			r.Read(&b, last, 10)
			if got := seqs(b.Events); !slices.Equal(got, []uint64{last + 1}) || b.MissedTo != 0 {
				t.Fatalf("after the last restored, read %v missing %d-%d", got, b.MissedFrom, b.MissedTo)
			}
		})
	}
}
