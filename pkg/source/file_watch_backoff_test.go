package source

import (
	"testing"
	"time"
)

// TestWatchBackoff pins the kubelet's timing of failed file watches: 1s,
// doubled per failure up to 20s, starting over when a failure comes more
// than 40s after the one before.
func TestWatchBackoff(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newWatchBackoff()
	for _, f := range []struct {
		at, want time.Duration
	}{
		{at: 0, want: time.Second},
		{at: 1 * time.Second, want: 2 * time.Second},
		{at: 3 * time.Second, want: 4 * time.Second},
		{at: 7 * time.Second, want: 8 * time.Second},
		{at: 15 * time.Second, want: 16 * time.Second},
		{at: 31 * time.Second, want: 20 * time.Second},
		{at: 51 * time.Second, want: 20 * time.Second},
		// 40s after the one before is not yet more than 40s.
		{at: 91 * time.Second, want: 20 * time.Second},
		{at: 132 * time.Second, want: time.Second},
		{at: 133 * time.Second, want: 2 * time.Second},
	} {
		if got := b.failed(start.Add(f.at)); got != f.want {
			t.Fatalf("wait after the failure at %v: %v, want %v", f.at, got, f.want)
		}
	}
}
