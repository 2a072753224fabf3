package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
)

// metrics are the agent's Prometheus metrics, in a registry of its own.
type metrics struct {
	registry *prometheus.Registry
	events   *prometheus.CounterVec
	handlers *prometheus.CounterVec
	admitted prometheus.Counter
	rejected *prometheus.CounterVec
	// serving are the API's own.
	serving *serve.Metrics
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
		admitted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "podsrc_admission_admitted_total",
			Help: "Added pods the kubelet's admit handlers admit, as podsrc judges them or reads them back.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "podsrc_admission_rejections_total",
			Help: "Added pods the kubelet's admit handlers reject, by reason, as the kubelet's kubelet_admission_rejections_total counts them.",
		}, []string{"reason"}),
		serving: serve.NewMetrics(),
	}
	m.registry.MustRegister(m.events, m.handlers, m.admitted, m.rejected,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(a.kubelet), &stateCollector{a: a})
	m.registry.MustRegister(m.serving.Collectors()...)
	return m
}

// admissions counts podsrc's verdicts on the pods of one ADD; skipped pods,
// unknown verdicts and the kubelet's own, read back (counted again at every
// agent start), count nowhere.
func (m *metrics) admissions(verdicts map[types.UID]v1alpha1.Admission) {
	for _, v := range verdicts {
		switch {
		case v.Skipped != "" || v.Unknown != "" || v.ReadBack:
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
