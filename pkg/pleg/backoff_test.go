package pleg

import (
	"testing"
	"time"
)

// retryDelay is the pause relistBackoff gives after failures consecutive
// failed relists.
func retryDelay(o Options, failures int) time.Duration {
	b := o.relistBackoff()
	var d time.Duration
	for range failures {
		d = b.Step()
	}
	return d
}

func TestRelistBackoff(t *testing.T) {
	tests := []struct {
		name        string
		period, max time.Duration
		failures    int
		want        time.Duration
	}{
		{name: "first failure keeps the period", period: time.Second, max: 8 * time.Second, failures: 1, want: time.Second},
		{name: "second doubles", period: time.Second, max: 8 * time.Second, failures: 2, want: 2 * time.Second},
		{name: "third doubles again", period: time.Second, max: 8 * time.Second, failures: 3, want: 4 * time.Second},
		{name: "reaches the cap", period: time.Second, max: 8 * time.Second, failures: 4, want: 8 * time.Second},
		{name: "capped", period: time.Second, max: 8 * time.Second, failures: 10, want: 8 * time.Second},
		{name: "capped for long runs of failures", period: time.Second, max: 8 * time.Second, failures: 100000, want: 8 * time.Second},
		{name: "a cap between two doublings", period: 3 * time.Second, max: 8 * time.Second, failures: 3, want: 8 * time.Second},
		{name: "a cap of the period", period: time.Second, max: time.Second, failures: 5, want: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{RelistPeriod: tt.period, MaxBackoff: tt.max}.withDefaults()
			if got := retryDelay(o, tt.failures); got != tt.want {
				t.Fatalf("pause after %d failures: %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}
