package pleg

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Run relists at once, then RelistPeriod after the end of each relist (or
// after a growing backoff while relists fail), until ctx is done. Run
// returns when ctx is done; it must not be called twice at the same time.
func (g *GenericPLEG) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("pleg")
	ctx = klog.NewContext(ctx, logger)
	var timer clock.Timer
	backoff := g.opts.relistBackoff()
	for ctx.Err() == nil {
		next := g.relistAndSchedule(ctx, &backoff)
		if timer == nil {
			timer = g.clock.NewTimer(next)
			defer timer.Stop()
		} else {
			timer.Reset(next)
		}
		select {
		case <-ctx.Done():
			return
		case <-timer.C():
		}
	}
}

// relistAndSchedule relists once and returns the pause before the next
// relist: the relist period after a success (which starts backoff over),
// backoff's next step after a failure.
func (g *GenericPLEG) relistAndSchedule(ctx context.Context, backoff *wait.Backoff) time.Duration {
	err := g.Relist(ctx)
	if err == nil {
		*backoff = g.opts.relistBackoff()
		return g.opts.RelistPeriod
	}
	_, failures := g.stats.lastError()
	next := backoff.Step()
	klog.FromContext(ctx).V(2).Info("Relist failed, retrying", "err", err, "consecutiveFailures", failures, "retryIn", next)
	return next
}
