package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// metrics are the agent's Prometheus metrics, in a registry of its own.
type metrics struct {
	registry    *prometheus.Registry
	events      *prometheus.CounterVec
	subscribers prometheus.Gauge
	lagging     prometheus.Counter
	refused     *prometheus.CounterVec
}

func newMetrics(a *Agent) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_events_total",
			Help: "Events published, by kind (config, pleg) and type (the merge's op or the PLEG event type).",
		}, []string{"kind", "type"}),
		subscribers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "podsrc_stream_subscribers",
			Help: "Event streams open now.",
		}),
		lagging: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podsrc_stream_lagging_total",
			Help: "Event streams closed because the client read too slowly.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_refused_total",
			Help: "Connections and requests answered 503 because a limit was reached, by limit.",
		}, []string{"limit"}),
	}
	m.registry.MustRegister(m.events, m.subscribers, m.lagging, m.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(a.kubeletSemantics()), &stateCollector{a: a})
	return m
}

func (m *metrics) configEvent(u merge.PodUpdate) {
	m.events.WithLabelValues(v1alpha1.EventKindConfig, u.Op.String()).Inc()
}

func (m *metrics) plegEvent(r pleg.ComputedEvent) {
	m.events.WithLabelValues(v1alpha1.EventKindPLEG, string(r.Type)).Inc()
}
