package client

import (
	"testing"
	"time"
)

// TestWatcherBackoff pins the waits between reconnection attempts: from
// InitialBackoff, doubled per attempt up to MaxBackoff, each with up to a
// fifth more at random.
func TestWatcherBackoff(t *testing.T) {
	tests := []struct {
		name             string
		initial, maxWait time.Duration
		want             []time.Duration
	}{
		{name: "doubles to the cap", initial: time.Second, maxWait: 4 * time.Second,
			want: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}},
		{name: "a cap between two doublings", initial: 3 * time.Second, maxWait: 8 * time.Second,
			want: []time.Duration{3 * time.Second, 6 * time.Second, 8 * time.Second}},
		{name: "an initial wait over the cap is capped", initial: time.Minute, maxWait: time.Second,
			want: []time.Duration{time.Second, time.Second}},
		{name: "defaults", want: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Watcher{InitialBackoff: tt.initial, MaxBackoff: tt.maxWait}
			b := w.backoff()
			for i, want := range tt.want {
				if got := b.Step(); got < want || got > want+want/5 {
					t.Fatalf("wait before attempt %d: %v, want %v to %v", i+1, got, want, want+want/5)
				}
			}
		})
	}
}
