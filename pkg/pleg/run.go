package pleg

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Run relists at once, then RelistPeriod after the end of each relist (or
// after a growing backoff while relists fail), until ctx is done. With
// Options.RuntimeEvents it also relists when the runtime reports a change,
// no sooner than EventRelistGap, nor than the previous relist's duration,
// after the previous relist. Run returns when
// ctx is done; it must not be called twice at the same time.
func (g *GenericPLEG) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("pleg")
	ctx = klog.NewContext(ctx, logger)
	var wake chan struct{}
	if g.opts.RuntimeEvents != nil {
		wake = make(chan struct{}, 1)
		var wg sync.WaitGroup
		defer wg.Wait()
		wg.Go(func() { g.followRuntimeEvents(ctx, wake) })
	}
	var timer clock.Timer
	backoff := g.opts.relistBackoff()
	for ctx.Err() == nil {
		// The relist covers the events that came before it starts.
		select {
		case <-wake:
		default:
		}
		start := g.clock.Now()
		next, ok := g.relistAndSchedule(ctx, &backoff)
		end := g.clock.Now()
		if timer == nil {
			timer = g.clock.NewTimer(next)
			defer timer.Stop()
		} else {
			timer.Reset(next)
		}
		// While relists fail, the backoff stands: events ask for nothing.
		events := wake
		if !ok {
			events = nil
		}
		// An event relists no sooner than EventRelistGap, nor than the
		// relist's own duration, after it: a storm of events never has
		// Run relisting more than half the time, however slow the relists.
		// (A period shorter than a relist keeps it busier, as without
		// events.)
		gap := max(g.opts.EventRelistGap, end.Sub(start))
		if !g.awaitRelist(ctx, timer, events, end.Add(next), end.Add(gap)) {
			return
		}
	}
}

// relistAndSchedule relists once and returns the pause before the next
// relist: the relist period after a success (which starts backoff over),
// backoff's next step after a failure; and whether the relist succeeded.
func (g *GenericPLEG) relistAndSchedule(ctx context.Context, backoff *wait.Backoff) (time.Duration, bool) {
	err := g.Relist(ctx)
	if err == nil {
		*backoff = g.opts.relistBackoff()
		return g.opts.RelistPeriod, true
	}
	_, failures := g.failures.last()
	next := backoff.Step()
	klog.FromContext(ctx).V(2).Info("Relist failed, retrying", "err", err, "consecutiveFailures", failures, "retryIn", next)
	return next, false
}

// awaitRelist waits until the next relist is due: when timer fires (at due),
// or, after a value on wake, at earliest or at once if that has passed. It
// returns false when ctx is done first.
func (g *GenericPLEG) awaitRelist(ctx context.Context, timer clock.Timer, wake <-chan struct{}, due, earliest time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C():
			return true
		case <-wake:
			now := g.clock.Now()
			at := earliest
			if at.Before(now) {
				at = now
			}
			if !at.Before(due) {
				// The timer comes as soon: nothing to hurry.
				continue
			}
			if !at.After(now) {
				g.follow.relistAsked()
				if !timer.Stop() {
					// It fired meanwhile: drop its value.
					select {
					case <-timer.C():
					default:
					}
				}
				return true
			}
			due = at
			timer.Reset(at.Sub(now))
			g.follow.relistAsked()
		}
	}
}
