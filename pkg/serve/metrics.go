package serve

import "github.com/prometheus/client_golang/prometheus"

// Metrics count what the API streams and what its limits refuse; the
// agent registers them with its own (Collectors).
type Metrics struct {
	// Subscribers is the number of event streams open.
	Subscribers prometheus.Gauge
	// Lagging counts the streams closed for reading too slowly.
	Lagging prometheus.Counter
	// Refused counts the connections and requests answered 503, by limit.
	Refused *prometheus.CounterVec
	// Evicted counts the idle connections closed to make room, by limit.
	Evicted *prometheus.CounterVec
}

// NewMetrics returns the API's metrics, unregistered.
func NewMetrics() *Metrics {
	return &Metrics{
		Subscribers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "podsrc_stream_subscribers",
			Help: "Event streams open now.",
		}),
		Lagging: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podsrc_stream_lagging_total",
			Help: "Event streams closed because the client read too slowly.",
		}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_refused_total",
			Help: "Connections and requests answered 503 because a limit was reached, by limit: connections, streams or snapshot-requests (as --max-<limit> names it) or probe-connections, with -per-peer for one address's share.",
		}, []string{"limit"}),
		Evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_idle_connections_closed_total",
			Help: "Idle connections closed to make room for a new one beyond a connection limit, by limit.",
		}, []string{"limit"}),
	}
}

// Collectors returns the metrics, for a registry.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Subscribers, m.Lagging, m.Refused, m.Evicted}
}
