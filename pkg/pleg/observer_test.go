package pleg

import (
	"sync"
	"testing"
	"time"
)

// measures is the Observer the tests read what a PLEG measured through, as
// the agent does through package plegstats: it keeps every observation.
type measures struct {
	mu          sync.Mutex
	relists     uint64
	failures    uint64
	history     []RelistSummary
	calls       map[string]callMeasures
	inspections []PodInspection
	events      []ComputedEvent
}

// callMeasures counts the calls of one CRI method.
type callMeasures struct{ Count, Errors uint64 }

// measured is a copy of what a measures observed, counted the way the
// agent's statistics count it.
type measured struct {
	Relists, RelistFailures        uint64
	LastError                      string
	History                        []RelistSummary
	Calls                          map[string]callMeasures
	Inspections                    []PodInspection
	InspectionFailures             uint64
	EventsComputed, EventsSent     map[EventType]uint64
	EventsDropped, EventsDiscarded uint64
}

func (m *measures) RelistStarted(time.Duration, bool) {}

func (m *measures) CallDone(call string, _ time.Duration, failed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls == nil {
		m.calls = make(map[string]callMeasures)
	}
	c := m.calls[call]
	c.Count++
	if failed {
		c.Errors++
	}
	m.calls[call] = c
}

func (m *measures) PodInspected(in PodInspection) {
	m.mu.Lock()
	m.inspections = append(m.inspections, in)
	m.mu.Unlock()
}

func (m *measures) EventComputed(ev ComputedEvent) {
	m.mu.Lock()
	m.events = append(m.events, ev)
	m.mu.Unlock()
}

func (m *measures) RelistDone(sum RelistSummary, _ time.Duration, _ RelistCounts) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.relists++
	if sum.Error != "" {
		m.failures++
	}
	m.history = append(m.history, sum)
}

// measuredBy returns what g's observer, a *measures, observed so far.
func measuredBy(t testing.TB, g *GenericPLEG) measured {
	t.Helper()
	m, ok := g.opts.Observer.(*measures)
	if !ok {
		t.Fatalf("the PLEG's observer is a %T, not a *measures", g.opts.Observer)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := measured{
		Relists:        m.relists,
		RelistFailures: m.failures,
		History:        append([]RelistSummary(nil), m.history...),
		Calls:          make(map[string]callMeasures, len(m.calls)),
		Inspections:    append([]PodInspection(nil), m.inspections...),
		EventsComputed: make(map[EventType]uint64),
		EventsSent:     make(map[EventType]uint64),
	}
	for _, sum := range m.history {
		if sum.Error != "" {
			out.LastError = sum.Error
		}
	}
	for c, n := range m.calls {
		out.Calls[c] = n
	}
	for _, in := range m.inspections {
		if in.Error != "" {
			out.InspectionFailures++
		}
	}
	for _, ev := range m.events {
		out.EventsComputed[ev.Type]++
		switch ev.Outcome {
		case OutcomeSent:
			out.EventsSent[ev.Type]++
		case OutcomeDropped:
			out.EventsDropped++
		case OutcomeInspectionFailed:
			out.EventsDiscarded++
		}
	}
	return out
}
