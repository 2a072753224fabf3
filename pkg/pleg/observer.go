package pleg

import "time"

// Observer is told what the PLEG measures, as it measures it: the relists,
// their CRI calls, pod inspections and computed events. Its methods are
// called from the relist, one at a time, so they must not block. The
// statistics the agent serves (package plegstats) are an Observer; the
// engine keeps none of its own.
type Observer interface {
	// RelistStarted says a relist begins; the kubelet's sync loop is
	// taken to have read its channel empty. interval is the time since
	// the start of the last successful relist, when there was one (ok).
	RelistStarted(interval time.Duration, ok bool)
	// CallDone says a CRI call (a Call* name) took d, and whether it
	// failed.
	CallDone(call string, d time.Duration, failed bool)
	// PodInspected says a pod's status was read (or failed to be).
	PodInspected(PodInspection)
	// EventComputed says an event was computed, with its outcome.
	EventComputed(ComputedEvent)
	// RelistDone says a relist ended after d; sum.Error is set when it
	// failed, counts only when it succeeded.
	RelistDone(sum RelistSummary, d time.Duration, counts RelistCounts)
}

// noObserver is the Observer of a PLEG given none.
type noObserver struct{}

// RelistStarted, CallDone, PodInspected, EventComputed and RelistDone
// implement Observer: they take nothing.
func (noObserver) RelistStarted(time.Duration, bool)                     {}
func (noObserver) CallDone(string, time.Duration, bool)                  {}
func (noObserver) PodInspected(PodInspection)                            {}
func (noObserver) EventComputed(ComputedEvent)                           {}
func (noObserver) RelistDone(RelistSummary, time.Duration, RelistCounts) {}
