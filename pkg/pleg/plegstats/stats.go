// Package plegstats keeps the statistics of a PLEG (package pleg) as its
// Observer: relist and CRI call latencies, the slowest pod inspections and
// the computed events, which the agent serves on /pleg and /metrics. The
// engine itself keeps none, as the kubelet keeps its metrics apart from its
// PLEG.
package plegstats

import (
	"slices"
	"sync"
	"time"

	"github.com/podsrc/podsrc/pkg/pleg"
)

// Defaults for Options fields left zero.
const (
	// DefaultHistoryLength is how many recent relists are kept, for the
	// slowest pods and the latency percentiles.
	DefaultHistoryLength = 100
	// DefaultSlowestPods is how many slow pod inspections Stats lists.
	DefaultSlowestPods = 10
)

// Options configure a Recorder.
type Options struct {
	// HistoryLength is the number of recent relists kept, and of samples
	// the latency percentiles are computed over.
	HistoryLength int
	// SlowestPods is the number of slowest pod inspections in Stats.
	SlowestPods int
	// ChannelCapacity is the PLEG's pleg.Options.ChannelCapacity, which
	// Stats reports.
	ChannelCapacity int
}

// Stats is a snapshot of what the PLEG measured.
type Stats struct {
	// Relists counts relist attempts, RelistFailures the failed ones.
	Relists        uint64
	RelistFailures uint64
	// LastError is the error of the last failed relist, kept after good
	// ones.
	LastError string
	// RelistDuration is the duration of relists (failed ones included, as
	// errors); RelistInterval the time from the last successful relist's
	// start to each relist's start, as the kubelet measures it.
	RelistDuration LatencySummary
	RelistInterval LatencySummary
	// Calls has the latency of each CRI call, by pleg.Call* name.
	Calls map[string]LatencySummary
	// SlowestPods are the slowest pod inspections of the recent relists,
	// slowest first.
	SlowestPods []pleg.PodInspection
	// EventsComputed counts every event computed, by type (ContainerChanged
	// included); EventsSent those put on the kubelet's channel.
	EventsComputed map[pleg.EventType]uint64
	EventsSent     map[pleg.EventType]uint64
	// EventsDropped counts events lost to a full channel.
	EventsDropped uint64
	// EventsDiscarded counts events discarded because their pod's
	// inspection failed (they are computed again by a later relist).
	EventsDiscarded uint64
	// InspectionFailures counts failed pod status inspections.
	InspectionFailures uint64
	// Pods and RunningPods (pods with a running sandbox) are from the last
	// successful relist, as are Containers by state.
	Pods        int
	RunningPods int
	Containers  map[pleg.ContainerState]int
	// ChannelLength and ChannelCapacity describe the kubelet's channel as
	// the PLEG accounts for it: the events sent by the last relist, and
	// Options.ChannelCapacity.
	ChannelLength   int
	ChannelCapacity int
}

// Recorder is the pleg.Observer that accumulates what Stats reports. Safe for
// concurrent use.
type Recorder struct {
	mu sync.Mutex

	relists, relistFailures uint64
	lastErr                 string

	relistDur, interval latency
	calls               map[string]*latency

	history     ring[pleg.RelistSummary]
	inspections ring[pleg.PodInspection]
	slowest     int

	computed, sent               map[pleg.EventType]uint64
	dropped, discarded, inspFail uint64
	counts                       pleg.RelistCounts

	channelLen, channelCap int
}

var _ pleg.Observer = (*Recorder)(nil)

// New returns an empty Recorder.
func New(o Options) *Recorder {
	if o.HistoryLength <= 0 {
		o.HistoryLength = DefaultHistoryLength
	}
	if o.SlowestPods <= 0 {
		o.SlowestPods = DefaultSlowestPods
	}
	if o.ChannelCapacity <= 0 {
		o.ChannelCapacity = pleg.DefaultChannelCapacity
	}
	r := &Recorder{
		relistDur:   newLatency(o.HistoryLength, RelistBuckets),
		interval:    newLatency(o.HistoryLength, RelistBuckets),
		calls:       make(map[string]*latency, 4),
		history:     newRing[pleg.RelistSummary](o.HistoryLength),
		inspections: newRing[pleg.PodInspection](4 * o.HistoryLength),
		channelCap:  o.ChannelCapacity,
		slowest:     o.SlowestPods,
		computed:    make(map[pleg.EventType]uint64),
		sent:        make(map[pleg.EventType]uint64),
	}
	for _, c := range []string{pleg.CallListPodSandbox, pleg.CallListContainers, pleg.CallPodSandboxStatus, pleg.CallContainerStatus} {
		l := newLatency(o.HistoryLength, CallBuckets)
		r.calls[c] = &l
	}
	return r
}

// RelistStarted implements pleg.Observer.
func (r *Recorder) RelistStarted(interval time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.channelLen = 0
	if ok {
		r.interval.observe(interval, false)
	}
}

// CallDone implements pleg.Observer.
func (r *Recorder) CallDone(call string, d time.Duration, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.calls[call]; l != nil {
		l.observe(d, failed)
	}
}

// PodInspected implements pleg.Observer.
func (r *Recorder) PodInspected(in pleg.PodInspection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inspections.add(in)
	if in.Error != "" {
		r.inspFail++
	}
}

// EventComputed implements pleg.Observer.
func (r *Recorder) EventComputed(ev pleg.ComputedEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.computed[ev.Type]++
	switch ev.Outcome {
	case pleg.OutcomeSent:
		r.sent[ev.Type]++
		r.channelLen++
	case pleg.OutcomeDropped:
		r.dropped++
	case pleg.OutcomeInspectionFailed:
		r.discarded++
	}
}

// RelistDone implements pleg.Observer.
func (r *Recorder) RelistDone(sum pleg.RelistSummary, d time.Duration, counts pleg.RelistCounts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.relists++
	failed := sum.Error != ""
	r.relistDur.observe(d, failed)
	r.history.add(sum)
	if failed {
		r.relistFailures++
		r.lastErr = sum.Error
		return
	}
	r.counts = counts
}

// Stats returns a snapshot of the statistics.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Stats{
		Relists:            r.relists,
		RelistFailures:     r.relistFailures,
		LastError:          r.lastErr,
		RelistDuration:     r.relistDur.summary(),
		RelistInterval:     r.interval.summary(),
		Calls:              make(map[string]LatencySummary, len(r.calls)),
		EventsComputed:     make(map[pleg.EventType]uint64, len(r.computed)),
		EventsSent:         make(map[pleg.EventType]uint64, len(r.sent)),
		EventsDropped:      r.dropped,
		EventsDiscarded:    r.discarded,
		InspectionFailures: r.inspFail,
		Pods:               r.counts.Pods,
		RunningPods:        r.counts.RunningPods,
		Containers: map[pleg.ContainerState]int{
			pleg.StateCreated: r.counts.Created,
			pleg.StateRunning: r.counts.Running,
			pleg.StateExited:  r.counts.Exited,
			pleg.StateUnknown: r.counts.Unknown,
		},
		ChannelLength:   r.channelLen,
		ChannelCapacity: r.channelCap,
	}
	for name, l := range r.calls {
		s.Calls[name] = l.summary()
	}
	for t, n := range r.computed {
		s.EventsComputed[t] = n
	}
	for t, n := range r.sent {
		s.EventsSent[t] = n
	}
	s.SlowestPods = r.slowestPods()
	return s
}

// slowestPods returns the slowest inspections among those of the relists
// still in the history. Called with mu held.
func (r *Recorder) slowestPods() []pleg.PodInspection {
	var oldest uint64
	if r.history.len() > 0 {
		oldest = r.history.at(0).Seq
	}
	all := r.inspections.values()
	all = slices.DeleteFunc(all, func(p pleg.PodInspection) bool { return p.Relist < oldest })
	slices.SortStableFunc(all, func(a, b pleg.PodInspection) int {
		switch {
		case a.DurationSeconds > b.DurationSeconds:
			return -1
		case a.DurationSeconds < b.DurationSeconds:
			return 1
		}
		return 0
	})
	if len(all) > r.slowest {
		all = all[:r.slowest]
	}
	return all
}
