package pleg

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Names of the CRI calls whose latencies Stats reports.
const (
	CallListPodSandbox   = "ListPodSandbox"
	CallListContainers   = "ListContainers"
	CallPodSandboxStatus = "PodSandboxStatus"
	CallContainerStatus  = "ContainerStatus"
)

// criCall indexes the per-call latencies of the CRI calls a relist makes.
type criCall int

const (
	callListPodSandbox criCall = iota
	callListContainers
	callPodSandboxStatus
	callContainerStatus
	numCalls
)

var callNames = [numCalls]string{CallListPodSandbox, CallListContainers, CallPodSandboxStatus, CallContainerStatus}

// Outcomes of a computed event, in ComputedEvent.Outcome.
const (
	// OutcomeSent: the event went on the kubelet's channel.
	OutcomeSent = "sent"
	// OutcomeDropped: the kubelet's channel was full; the kubelet drops it
	// too.
	OutcomeDropped = "dropped"
	// OutcomeNotSent: the kubelet computes but never sends this type.
	OutcomeNotSent = "not-sent-by-kubelet"
	// OutcomeInspectionFailed: the pod's status could not be read; the
	// kubelet discards the events and computes them again next relist.
	OutcomeInspectionFailed = "discarded-inspection-failed"
)

// ComputedEvent is one computed event and what became of it.
type ComputedEvent struct {
	PodLifecycleEvent
	Outcome string
	// Cached is the pod's cache entry as the relist that computed the
	// event left it, the status the kubelet's sync loop reads when it
	// handles the event; nil when the runtime no longer has the pod. It is
	// shared with the cache: handlers must not modify it.
	Cached *CachedPod
}

// RelistSummary describes one relist.
type RelistSummary struct {
	Seq                   uint64
	Start                 time.Time
	DurationSeconds       float64
	IntervalSeconds       float64
	ListSandboxesSeconds  float64
	ListContainersSeconds float64
	Pods                  int
	Sandboxes             int
	Containers            int
	Events                int
	Inspected             int
	InspectionFailures    int
	Error                 string
}

// PodInspection is the status inspection of one pod during one relist.
type PodInspection struct {
	Relist          uint64
	Time            time.Time
	PodID           types.UID
	Name            string
	Namespace       string
	DurationSeconds float64
	Calls           int
	Error           string
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
	// Calls has the latency of each CRI call, by Call* name.
	Calls map[string]LatencySummary
	// SlowestPods are the slowest pod inspections of the recent relists,
	// slowest first.
	SlowestPods []PodInspection
	// EventsComputed counts every event computed, by type (ContainerChanged
	// included); EventsSent those put on the kubelet's channel.
	EventsComputed map[EventType]uint64
	EventsSent     map[EventType]uint64
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
	Containers  map[ContainerState]int
	// ChannelLength and ChannelCapacity describe the kubelet's channel as
	// the PLEG accounts for it: the events sent by the last relist, and
	// Options.ChannelCapacity.
	ChannelLength   int
	ChannelCapacity int
	// RuntimeEvents describes how Run follows the runtime's container
	// events (Options.RuntimeEvents).
	RuntimeEvents RuntimeEventsStats
}

// relistCounts are the object counts of one successful relist.
type relistCounts struct {
	pods, sandboxes, runningPods int
	containers                   [4]int // by stateIndex
}

func stateIndex(s ContainerState) int {
	switch s {
	case StateCreated:
		return 0
	case StateRunning:
		return 1
	case StateExited:
		return 2
	}
	return 3
}

var statesByIndex = [4]ContainerState{StateCreated, StateRunning, StateExited, StateUnknown}

// statistics accumulates what Stats reports: relist and CRI call latencies,
// recent relists, inspections and computed events. Safe for concurrent use.
type statistics struct {
	mu sync.Mutex

	relists, relistFailures uint64
	consecutiveFailures     int
	lastErr                 string

	relistDur, interval latency
	calls               [numCalls]latency

	history     ring[RelistSummary]
	inspections ring[PodInspection]
	slowest     int

	computed, sent               map[EventType]uint64
	dropped, discarded, inspFail uint64
	counts                       relistCounts

	// channelLen and channelCap account for the kubelet's PLEG channel,
	// which the kubelet's sync loop is taken to empty between two relists:
	// a relist sends at most channelCap events, and drops the rest.
	channelLen, channelCap int
}

func newStatistics(o *Options) *statistics {
	st := &statistics{
		relistDur:   newLatency(o.HistoryLength, RelistBuckets),
		interval:    newLatency(o.HistoryLength, RelistBuckets),
		history:     newRing[RelistSummary](o.HistoryLength),
		inspections: newRing[PodInspection](4 * o.HistoryLength),
		channelCap:  o.ChannelCapacity,
		slowest:     o.SlowestPods,
		computed:    make(map[EventType]uint64),
		sent:        make(map[EventType]uint64),
	}
	for i := range st.calls {
		st.calls[i] = newLatency(o.HistoryLength, CallBuckets)
	}
	return st
}

func (st *statistics) observeCall(c criCall, d time.Duration, failed bool) {
	st.mu.Lock()
	st.calls[c].observe(d, failed)
	st.mu.Unlock()
}

func (st *statistics) observeInterval(d time.Duration) {
	st.mu.Lock()
	st.interval.observe(d, false)
	st.mu.Unlock()
}

func (st *statistics) observeInspection(in PodInspection, d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.inspections.add(in)
	if in.Error != "" {
		st.inspFail++
	}
}

func (st *statistics) observeEvent(ev ComputedEvent) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.computed[ev.Type]++
	switch ev.Outcome {
	case OutcomeSent:
		st.sent[ev.Type]++
	case OutcomeDropped:
		st.dropped++
	case OutcomeInspectionFailed:
		st.discarded++
	}
}

// emptyChannel starts a relist with the kubelet's channel read empty.
func (st *statistics) emptyChannel() {
	st.mu.Lock()
	st.channelLen = 0
	st.mu.Unlock()
}

// send puts an event on the kubelet's channel, as far as it is accounted
// for, and reports whether it fitted.
func (st *statistics) send() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.channelLen == st.channelCap {
		return false
	}
	st.channelLen++
	return true
}

func (st *statistics) relistFailed(sum RelistSummary, d time.Duration, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.relists++
	st.relistFailures++
	st.consecutiveFailures++
	st.lastErr = err.Error()
	st.relistDur.observe(d, true)
	st.history.add(sum)
}

func (st *statistics) relistDone(sum RelistSummary, d time.Duration, c relistCounts) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.relists++
	st.consecutiveFailures = 0
	st.relistDur.observe(d, false)
	st.history.add(sum)
	st.counts = c
}

// lastError returns the error of the last relist if it failed.
func (st *statistics) lastError() (string, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.consecutiveFailures == 0 {
		return "", 0
	}
	return st.lastErr, st.consecutiveFailures
}

func (st *statistics) snapshot() Stats {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := Stats{
		Relists:            st.relists,
		RelistFailures:     st.relistFailures,
		LastError:          st.lastErr,
		RelistDuration:     st.relistDur.summary(),
		RelistInterval:     st.interval.summary(),
		Calls:              make(map[string]LatencySummary, numCalls),
		EventsComputed:     make(map[EventType]uint64, len(st.computed)),
		EventsSent:         make(map[EventType]uint64, len(st.sent)),
		EventsDropped:      st.dropped,
		EventsDiscarded:    st.discarded,
		InspectionFailures: st.inspFail,
		Pods:               st.counts.pods,
		RunningPods:        st.counts.runningPods,
		Containers:         make(map[ContainerState]int, 4),
		ChannelLength:      st.channelLen,
		ChannelCapacity:    st.channelCap,
	}
	for k := range st.calls {
		s.Calls[callNames[k]] = st.calls[k].summary()
	}
	for t, n := range st.computed {
		s.EventsComputed[t] = n
	}
	for t, n := range st.sent {
		s.EventsSent[t] = n
	}
	for i, n := range st.counts.containers {
		s.Containers[statesByIndex[i]] = n
	}
	s.SlowestPods = st.slowestPods()
	return s
}

// slowestPods returns the slowest inspections among those of the relists
// still in the history. Called with mu held.
func (st *statistics) slowestPods() []PodInspection {
	var oldest uint64
	if st.history.len() > 0 {
		oldest = st.history.at(0).Seq
	}
	all := st.inspections.values()
	all = slices.DeleteFunc(all, func(p PodInspection) bool { return p.Relist < oldest })
	slices.SortStableFunc(all, func(a, b PodInspection) int {
		switch {
		case a.DurationSeconds > b.DurationSeconds:
			return -1
		case a.DurationSeconds < b.DurationSeconds:
			return 1
		}
		return 0
	})
	if len(all) > st.slowest {
		all = all[:st.slowest]
	}
	return all
}
