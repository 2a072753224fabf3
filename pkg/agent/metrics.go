package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// metrics are the agent's Prometheus metrics, in a registry of its own.
type metrics struct {
	registry    *prometheus.Registry
	events      *prometheus.CounterVec
	handlers    *prometheus.CounterVec
	subscribers prometheus.Gauge
	lagging     prometheus.Counter
	refused     *prometheus.CounterVec
	admitted    prometheus.Counter
	rejected    *prometheus.CounterVec
	evicted     *prometheus.CounterVec
}

func newMetrics(a *Agent) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_events_total",
			Help: "Events published, by kind (config, pleg) and type (the merge's op or the PLEG event type).",
		}, []string{"kind", "type"}),
		handlers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_events_by_handler_total",
			Help: "Events published, by kind (config, pleg) and the kubelet's sync loop handler they go to (HandlePodAdditions, ..., or ignored).",
		}, []string{"kind", "handler"}),
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
		admitted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podsrc_admission_admitted_total",
			Help: "Added pods the kubelet's admit handlers admit, as podsrc judges them or reads them back.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_admission_rejections_total",
			Help: "Added pods the kubelet's admit handlers reject, by reason, as the kubelet's kubelet_admission_rejections_total counts them.",
		}, []string{"reason"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_idle_connections_closed_total",
			Help: "Idle connections closed to make room for a new one beyond a connection limit, by limit.",
		}, []string{"limit"}),
	}
	m.registry.MustRegister(m.events, m.handlers, m.subscribers, m.lagging, m.refused, m.evicted, m.admitted, m.rejected,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&stateCollector{a: a})
	return m
}

// admissions counts the verdicts on the pods of one ADD; skipped pods and
// unknown verdicts count nowhere.
func (m *metrics) admissions(verdicts map[types.UID]v1alpha1.Admission) {
	for _, v := range verdicts {
		switch {
		case v.Skipped != "" || v.Unknown != "":
		case v.Admitted:
			m.admitted.Inc()
		default:
			m.rejected.WithLabelValues(v.Reason).Inc()
		}
	}
}

// event counts a published event.
func (m *metrics) event(e v1alpha1.Event) {
	typ := e.Op
	if e.Kind == v1alpha1.EventKindPLEG {
		typ = e.Type
	}
	m.events.WithLabelValues(e.Kind, typ).Inc()
	m.handlers.WithLabelValues(e.Kind, e.Handler).Inc()
}

// stateCollector reads the merge's and the PLEG's counters at scrape time.
type stateCollector struct{ a *Agent }

var (
	descSourceUpdates = prometheus.NewDesc("podsrc_source_updates_total", "Full lists a source sent to the merge.", []string{"source"}, nil)
	descSourcePods    = prometheus.NewDesc("podsrc_source_pods", "Pods a source has now.", []string{"source"}, nil)
	descSourceSeen    = prometheus.NewDesc("podsrc_source_seen", "1 once a source has sent its first full list.", []string{"source"}, nil)
	descMergeChanges  = prometheus.NewDesc("podsrc_merge_pod_changes_total", "Pods the merge found changed, by source and op.", []string{"source", "op"}, nil)
	descRelists       = prometheus.NewDesc("podsrc_pleg_relists_total", "PLEG relists, by result.", []string{"result"}, nil)
	descRelistSeconds = prometheus.NewDesc("podsrc_pleg_relist_duration_seconds", "PLEG relist duration over the recent relists.", []string{"quantile"}, nil)
	descIntervalSecs  = prometheus.NewDesc("podsrc_pleg_relist_interval_seconds", "Time between PLEG relists over the recent relists.", []string{"quantile"}, nil)
	descDropped       = prometheus.NewDesc("podsrc_pleg_events_dropped_total", "PLEG events lost to a full channel, as the kubelet would lose them.", nil, nil)
	descHealthy       = prometheus.NewDesc("podsrc_pleg_healthy", "1 when the PLEG is healthy by the kubelet's rule.", nil, nil)
)

// Describe sends the descriptors.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSourceUpdates, descSourcePods, descSourceSeen, descMergeChanges, descRelists, descRelistSeconds, descIntervalSecs, descDropped, descHealthy} {
		ch <- d
	}
}

// Collect reads the current values.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.a.podConfig.Stats() {
		ch <- prometheus.MustNewConstMetric(descSourceUpdates, prometheus.CounterValue, float64(st.Updates), st.Source)
		ch <- prometheus.MustNewConstMetric(descSourcePods, prometheus.GaugeValue, float64(st.Pods), st.Source)
		seen := 0.0
		if st.Seen {
			seen = 1
		}
		ch <- prometheus.MustNewConstMetric(descSourceSeen, prometheus.GaugeValue, seen, st.Source)
		for op, n := range map[string]int64{"ADD": st.Added, "UPDATE": st.Updated, "DELETE": st.Deleted, "REMOVE": st.Removed, "RECONCILE": st.Reconciled} {
			ch <- prometheus.MustNewConstMetric(descMergeChanges, prometheus.CounterValue, float64(n), st.Source, op)
		}
	}
	if c.a.pleg == nil {
		return
	}
	st := c.a.pleg.Stats()
	ch <- prometheus.MustNewConstMetric(descRelists, prometheus.CounterValue, float64(st.Relists-st.RelistFailures), "success")
	ch <- prometheus.MustNewConstMetric(descRelists, prometheus.CounterValue, float64(st.RelistFailures), "failure")
	for q, v := range map[string]float64{"0.5": st.RelistDuration.P50Seconds, "0.99": st.RelistDuration.P99Seconds, "1": st.RelistDuration.WindowMaxSeconds} {
		ch <- prometheus.MustNewConstMetric(descRelistSeconds, prometheus.GaugeValue, v, q)
	}
	for q, v := range map[string]float64{"0.5": st.RelistInterval.P50Seconds, "0.99": st.RelistInterval.P99Seconds, "1": st.RelistInterval.WindowMaxSeconds} {
		ch <- prometheus.MustNewConstMetric(descIntervalSecs, prometheus.GaugeValue, v, q)
	}
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(st.EventsDropped))
	healthy := 0.0
	if ok, _ := c.a.pleg.Healthy(); ok {
		healthy = 1
	}
	ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, healthy)
}
