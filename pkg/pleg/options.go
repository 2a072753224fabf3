package pleg

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/podsrc/podsrc/pkg/cri"
)

// Defaults for Options fields left zero.
const (
	// DefaultRelistPeriod is the kubelet's generic PLEG relist period.
	DefaultRelistPeriod = time.Second
	// DefaultRelistThreshold is the kubelet's generic PLEG health threshold.
	DefaultRelistThreshold = 3 * time.Minute
	// DefaultMaxBackoff caps the wait between relists while they fail.
	DefaultMaxBackoff = 8 * time.Second
	// DefaultChannelCapacity is the kubelet's PLEG channel capacity.
	DefaultChannelCapacity = 1000
	// DefaultEventRelistGap is the shortest pause between the end of a
	// relist and a relist that a runtime event asks for.
	DefaultEventRelistGap = 50 * time.Millisecond
)

// Options configure a GenericPLEG. The zero value gives the kubelet's
// settings, but for one deliberate difference: while relists fail, the
// kubelet keeps relisting every RelistPeriod, whereas podsrc waits longer
// after each failure, up to MaxBackoff, so that a runtime that is down or
// restarting is not hammered by a second client. Events and health are the
// kubelet's either way; set MaxBackoff to RelistPeriod for its exact timing.
type Options struct {
	// RelistPeriod is the pause between the end of a relist and the start
	// of the next one.
	RelistPeriod time.Duration
	// RelistThreshold is how old the last successful relist may get before
	// Healthy fails.
	RelistThreshold time.Duration
	// MaxBackoff caps the pause after failed relists, which doubles from
	// RelistPeriod with each consecutive failure.
	MaxBackoff time.Duration
	// ChannelCapacity is the capacity of the kubelet's PLEG channel, which
	// the PLEG accounts for: the kubelet's sync loop is taken to read it
	// empty between two relists, so a relist sends at most this many
	// events and drops the rest, as the kubelet would.
	ChannelCapacity int
	// Clock is the time source; the real clock when nil.
	Clock clock.Clock
	// Semantics selects the kubelet minor to follow where minors differ;
	// the zero value is v1.36.
	Semantics Semantics
	// Handler, when set, is told of every computed event as the relist
	// computes it.
	Handler EventHandler
	// Observer, when set, is told what the relists measure (package
	// plegstats keeps the statistics).
	Observer Observer
	// RuntimeEvents, when set, is followed by Run: each container event the
	// runtime sends asks for a relist before RelistPeriod is over, no
	// sooner than EventRelistGap, nor than the previous relist lasted,
	// after the previous relist ended (so a storm of events never has Run
	// relisting more than half the time, however slow the relists). Every
	// relist computes its events in the same way, whatever started it,
	// and the periodic relist goes on as the floor. The kubelet's generic
	// PLEG does not do this (its evented PLEG, an alpha feature off by
	// default, turns the events into pod lifecycle events by itself).
	// While relists fail, events ask for nothing: the backoff stands. A
	// runtime that serves no events, or a broken stream, leaves the
	// periodic relist alone; a broken stream is opened again after a
	// backoff from 100 ms up to 8 s (at most MaxBackoff).
	RuntimeEvents cri.EventSource
	// EventRelistGap is the shortest pause between the end of a relist and
	// one that a runtime event asks for: it bounds the relists a burst of
	// events makes (a relist that lasted longer makes the pause longer).
	EventRelistGap time.Duration
}

func (o Options) withDefaults() Options {
	if o.RelistPeriod <= 0 {
		o.RelistPeriod = DefaultRelistPeriod
	}
	if o.RelistThreshold <= 0 {
		o.RelistThreshold = DefaultRelistThreshold
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.RelistPeriod)
	if o.ChannelCapacity <= 0 {
		o.ChannelCapacity = DefaultChannelCapacity
	}
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	if o.EventRelistGap <= 0 {
		o.EventRelistGap = DefaultEventRelistGap
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}
