package pleg

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestRunSchedule drives Run with a fake clock: the first relist is
// immediate, the next ones come a period after each relist, and failures
// stretch the pause.
func TestRunSchedule(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	rt := newFakeRuntime()
	g := New(rt, Options{Clock: clk, RelistPeriod: time.Second, MaxBackoff: 4 * time.Second, Observer: &measures{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.Run(ctx) }()
	defer func() { cancel(); <-done }()

	relists := func() uint64 { return measuredBy(t, g).Relists }
	// waitIdle waits until Run sleeps on its timer after n relists.
	waitIdle := func(what string, n uint64) {
		t.Helper()
		await(t, what, func() bool { return relists() == n && clk.HasWaiters() })
	}
	waitIdle("the first relist", 1)
	steps := []struct {
		name    string
		fail    bool
		advance time.Duration
		want    uint64
	}{
		{name: "not before the period", advance: 999 * time.Millisecond, want: 1},
		{name: "after the period", advance: time.Millisecond, want: 2},
		{name: "first failure", fail: true, advance: time.Second, want: 3},
		{name: "second failure one period after the first", fail: true, advance: time.Second, want: 4},
		{name: "no retry one period after the second failure", fail: true, advance: time.Second, want: 4},
		{name: "third failure two periods after the second", fail: true, advance: time.Second, want: 5},
		{name: "no retry three periods after the third failure", advance: 3 * time.Second, want: 5},
		{name: "recovery four periods after the third failure", advance: time.Second, want: 6},
		{name: "then the period again", advance: time.Second, want: 7},
	}
	for _, s := range steps {
		rt.failLists(s.fail)
		clk.Step(s.advance)
		waitIdle(s.name, s.want)
		if got := relists(); got != s.want {
			t.Fatalf("%s: %d relists, want %d", s.name, got, s.want)
		}
	}
}
