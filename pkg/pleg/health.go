package pleg

import (
	"fmt"
	"sync"
	"time"
)

// HealthError is the answer of an unhealthy Healthy. Its message is exactly
// the kubelet's; Cause, when set, is why relists fail (the error of the
// latest relist), which the kubelet only logs.
type HealthError struct {
	Message string
	Cause   error
}

// Error returns the kubelet's message.
func (e *HealthError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *HealthError) Unwrap() error { return e.Cause }

// Health is a detailed health report.
type Health struct {
	// Healthy and Message are the kubelet's verdict (Message empty when
	// healthy).
	Healthy bool
	Message string
	// RuntimeOK is false while relists fail; LastError is the error of the
	// latest relist then, ConsecutiveFailures how many failed in a row.
	RuntimeOK           bool
	LastError           string
	ConsecutiveFailures int
	// LastRelist is the start of the last successful relist, SinceSeconds
	// its age, ThresholdSeconds the limit Healthy applies.
	LastRelist       time.Time
	SinceSeconds     float64
	ThresholdSeconds float64
}

// relistTime returns the start of the last successful relist.
func (g *GenericPLEG) relistTime() time.Time {
	if t := g.lastRelist.Load(); t != nil {
		return *t
	}
	return time.Time{}
}

// Healthy answers like the kubelet's generic PLEG: unhealthy until a relist
// succeeded, and when the last successful relist started more than
// RelistThreshold ago. An unhealthy answer is a *HealthError whose cause is
// the latest relist error, if the latest relist failed.
func (g *GenericPLEG) Healthy() (bool, error) {
	t := g.relistTime()
	var cause error
	if msg, n := g.failures.last(); n > 0 {
		cause = fmt.Errorf("%d consecutive relists failed, last: %s", n, msg)
	}
	if t.IsZero() {
		return false, &HealthError{Message: "pleg has yet to be successful", Cause: cause}
	}
	elapsed := g.clock.Since(t)
	if elapsed > g.opts.RelistThreshold {
		return false, &HealthError{
			Message: fmt.Sprintf("pleg was last seen active %v ago; threshold is %v", elapsed, g.opts.RelistThreshold),
			Cause:   cause,
		}
	}
	return true, nil
}

// Health returns the kubelet's verdict together with the runtime's state,
// which turns bad as soon as a relist fails (the kubelet's verdict only
// after RelistThreshold).
func (g *GenericPLEG) Health() Health {
	ok, err := g.Healthy()
	h := Health{Healthy: ok, ThresholdSeconds: g.opts.RelistThreshold.Seconds()}
	if err != nil {
		h.Message = err.Error()
	}
	h.LastError, h.ConsecutiveFailures = g.failures.last()
	if t := g.relistTime(); !t.IsZero() {
		h.RuntimeOK = h.ConsecutiveFailures == 0
		h.LastRelist = t
		h.SinceSeconds = g.clock.Since(t).Seconds()
	}
	return h
}

// relistFailures counts the relists that failed in a row, with the last
// one's error. Safe for concurrent use.
type relistFailures struct {
	mu      sync.Mutex
	n       int
	lastErr string
}

// add counts a failed relist.
func (f *relistFailures) add(err string) {
	f.mu.Lock()
	f.n++
	f.lastErr = err
	f.mu.Unlock()
}

// reset starts over after a successful relist.
func (f *relistFailures) reset() {
	f.mu.Lock()
	f.n = 0
	f.mu.Unlock()
}

// last returns the error of the last relist and the relists that failed in a
// row, if it failed.
func (f *relistFailures) last() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return "", 0
	}
	return f.lastErr, f.n
}
