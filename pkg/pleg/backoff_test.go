package pleg

import (
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	tests := []struct {
		name     string
		failures int
		want     time.Duration
	}{
		{name: "no failure", failures: 0, want: time.Second},
		{name: "first failure keeps the period", failures: 1, want: time.Second},
		{name: "second doubles", failures: 2, want: 2 * time.Second},
		{name: "third doubles again", failures: 3, want: 4 * time.Second},
		{name: "capped", failures: 10, want: 8 * time.Second},
		{name: "capped for huge counts", failures: 1 << 30, want: 8 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryDelay(time.Second, 8*time.Second, tt.failures); got != tt.want {
				t.Fatalf("retryDelay(%d) = %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}
