package cli

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestProgressClearedBeforeAWarning: a warning written on stderr while the
// progress line is shown (a skew warning during the fan-out) starts on a
// clean line, and the progress line comes back under it.
func TestProgressClearedBeforeAWarning(t *testing.T) {
	term, ticks := &fakeTerminal{}, make(chan time.Time)
	p := startProgress(&Terminal{Out: term, Width: 80, Ticks: ticks}, []string{"node-1", "node-2"})
	awaitLine(t, term, ticks, "waiting for 2/2 nodes: node-1, node-2")
	fmt.Fprintln(p.guard(term), "Warning: node node-1 runs kubelet v1.35.1")
	if got, want := term.printed(), []string{"Warning: node node-1 runs kubelet v1.35.1"}; !slices.Equal(got, want) {
		t.Errorf("the terminal shows %q above the cursor, want %q", got, want)
	}
	if got := term.current(); got != "waiting for 2/2 nodes: node-1, node-2" {
		t.Errorf("after the warning the line is %q, want the progress line again", got)
	}
	p.finish()
	if got := term.current(); got != "" {
		t.Errorf("the line was not cleared: %q", got)
	}
}
