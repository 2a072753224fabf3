package source

import (
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// watchBackoff is the file watch's wait after a failure, as the kubelet's:
// watchRetryPeriod after the first, doubled after each further one up to
// watchMaxRetryPeriod, without jitter; a failure more than
// 2*watchMaxRetryPeriod after the one before starts it over.
// wait.Backoff has no such start-over by itself (its DelayWithReset starts
// over at fixed intervals, failing or not), so last keeps the time.
type watchBackoff struct {
	steps wait.Backoff
	last  time.Time
}

// newWatchBackoff returns the back-off before any failure.
func newWatchBackoff() *watchBackoff {
	return &watchBackoff{steps: initialWatchSteps()}
}

// initialWatchSteps are the waits of a run of failures from its first.
func initialWatchSteps() wait.Backoff {
	return wait.Backoff{Duration: watchRetryPeriod, Factor: 2, Cap: watchMaxRetryPeriod, Steps: math.MaxInt32}
}

// failed records a failure at now and returns the wait before the next try.
func (b *watchBackoff) failed(now time.Time) time.Duration {
	if !b.last.IsZero() && now.Sub(b.last) > 2*watchMaxRetryPeriod {
		b.steps = initialWatchSteps()
	}
	b.last = now
	return b.steps.Step()
}
