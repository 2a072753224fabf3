package apisource

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// stopClock is the real clock, except that the channels of After fire as
// soon as ctx ends. client-go's reflector waits on After between two
// watch-list attempts without looking at its context (watchList in
// tools/cache/reflector.go, for a refused connection or a 429), so with
// the API server unreachable a stopping source would sit out the
// reflector's back-off, up to 30 s. The reflector's own context checks do
// the rest: after the wake-up it sees the context ended and returns.
type stopClock struct {
	clock.RealClock
	ctx context.Context
}

// After returns a channel that receives the time once d has passed or ctx
// has ended, whichever comes first.
func (c stopClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	t := time.NewTimer(d)
	go func() {
		select {
		case now := <-t.C:
			ch <- now
		case <-c.ctx.Done():
			t.Stop()
			ch <- time.Now()
		}
	}()
	return ch
}
