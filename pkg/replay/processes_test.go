package replay

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestProcesses checks how a recording splits by agent process: at each
// boundary, or at settings that follow events without one; which process
// misses its start or has a gap amid it; and which ends before it stopped.
func TestProcesses(t *testing.T) {
	ev := func(seq uint64, kind string) v1alpha1.StreamMessage {
		e := &v1alpha1.Event{Seq: seq, Kind: kind}
		if kind == "settings" {
			e.Kind, e.Input = v1alpha1.EventKindInput, &v1alpha1.Input{Settings: &v1alpha1.InputSettings{}}
		}
		return v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: e}
	}
	gap := func(from, to uint64) v1alpha1.StreamMessage {
		return v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: from, To: to}
	}
	const b, s, c = v1alpha1.EventKindBoundary, "settings", v1alpha1.EventKindConfig
	type want struct {
		from, to                     uint64
		settings, missing, endsEarly bool
	}
	tests := []struct {
		name      string
		recording []v1alpha1.StreamMessage
		want      []want
	}{
		{name: "two clean processes", recording: []v1alpha1.StreamMessage{ev(1, b), ev(2, s), ev(3, c), ev(4, b), ev(5, s), ev(6, c)},
			want: []want{{from: 1, to: 3, settings: true}, {from: 4, to: 6, settings: true, endsEarly: true}}},
		{name: "a killed process's last events", recording: []v1alpha1.StreamMessage{ev(1, b), ev(2, s), ev(3, c), gap(4, 5), ev(6, b), ev(7, s)},
			want: []want{{from: 1, to: 3, settings: true, endsEarly: true}, {from: 6, to: 7, settings: true, endsEarly: true}}},
		{name: "a gap amid a process", recording: []v1alpha1.StreamMessage{ev(1, b), ev(2, s), gap(3, 3), ev(4, c)},
			want: []want{{from: 1, to: 4, settings: true, missing: true, endsEarly: true}}},
		{name: "the start cut off", recording: []v1alpha1.StreamMessage{gap(1, 2), ev(3, c), ev(4, b), ev(5, s)},
			want: []want{{from: 3, to: 3}, {from: 4, to: 5, settings: true, endsEarly: true}}},
		{name: "processes without a journal", recording: []v1alpha1.StreamMessage{ev(1, s), ev(2, c), ev(3, s), ev(4, c)},
			want: []want{{from: 1, to: 2, settings: true}, {from: 3, to: 4, settings: true, endsEarly: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := processes(tt.recording)
			if len(got) != len(tt.want) {
				t.Fatalf("%d processes, want %d", len(got), len(tt.want))
			}
			for i, p := range got {
				g := want{from: p.events[0].Seq, to: p.events[len(p.events)-1].Seq, settings: p.settings != nil, missing: p.missing != nil, endsEarly: p.endsEarly}
				if g != tt.want[i] {
					t.Errorf("process %d: %+v, want %+v", i, g, tt.want[i])
				}
			}
		})
	}
}
