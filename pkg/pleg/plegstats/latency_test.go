package plegstats

import (
	"testing"
	"time"
)

func TestLatencySummary(t *testing.T) {
	// From 100µs to a minute.
	bounds := []float64{
		.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05,
		.1, .25, .5, 1, 2.5, 5, 10, 30, 60,
	}
	l := newLatency(100, bounds)
	// 1ms..200ms: only the last 100 (101ms..200ms) are in the window.
	for i := 1; i <= 200; i++ {
		l.observe(time.Duration(i)*time.Millisecond, i%50 == 0)
	}
	s := l.summary()
	checks := []struct {
		name      string
		got, want float64
	}{
		{name: "count", got: float64(s.Count), want: 200},
		{name: "errors", got: float64(s.Errors), want: 4},
		{name: "window", got: float64(s.Window), want: 100},
		{name: "p50", got: s.P50Seconds, want: 0.150},
		{name: "p90", got: s.P90Seconds, want: 0.190},
		{name: "p99", got: s.P99Seconds, want: 0.199},
		{name: "window max", got: s.WindowMaxSeconds, want: 0.200},
		{name: "max", got: s.MaxSeconds, want: 0.200},
		{name: "last", got: s.LastSeconds, want: 0.200},
		{name: "bucket le 1ms", got: float64(s.Buckets[3].Count), want: 1},
		{name: "bucket le 100ms", got: float64(s.Buckets[9].Count), want: 100},
		{name: "bucket le 1m", got: float64(s.Buckets[len(s.Buckets)-1].Count), want: 200},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
				t.Fatalf("got %v, want %v", c.got, c.want)
			}
		})
	}
}

func TestRing(t *testing.T) {
	tests := []struct {
		name string
		add  int
		want []int
	}{
		{name: "empty", add: 0, want: []int{}},
		{name: "partly filled", add: 2, want: []int{1, 2}},
		{name: "wrapped", add: 5, want: []int{3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing[int](3)
			for i := 1; i <= tt.add; i++ {
				r.add(i)
			}
			got := r.values()
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
