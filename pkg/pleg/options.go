package pleg

import (
	"time"

	"k8s.io/utils/clock"
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
	// DefaultHistoryLength is how many relists Stats describes one by one.
	DefaultHistoryLength = 100
	// DefaultEventHistory is how many computed events are kept for Events.
	DefaultEventHistory = 1000
	// DefaultSlowestPods is how many slow pod inspections Stats lists.
	DefaultSlowestPods = 10
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
	// ChannelCapacity is the capacity of the Watch channel.
	ChannelCapacity int
	// HistoryLength is the number of recent relists kept, and of samples
	// the latency percentiles are computed over.
	HistoryLength int
	// EventHistory is the number of computed events kept for Events.
	EventHistory int
	// SlowestPods is the number of slowest pod inspections in Stats.
	SlowestPods int
	// Clock is the time source; the real clock when nil.
	Clock clock.Clock
	// Semantics selects the kubelet minor to follow where minors differ;
	// the zero value is v1.36.
	Semantics Semantics
	// Handler, when set, is told of every computed event as the relist
	// computes it.
	Handler EventHandler
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
	if o.HistoryLength <= 0 {
		o.HistoryLength = DefaultHistoryLength
	}
	if o.EventHistory <= 0 {
		o.EventHistory = DefaultEventHistory
	}
	if o.SlowestPods <= 0 {
		o.SlowestPods = DefaultSlowestPods
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}
