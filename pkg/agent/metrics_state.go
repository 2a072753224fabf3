package agent

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/pleg/plegstats"
)

// stateCollector reads the sources', the merge's and the PLEG's state at
// scrape time.
type stateCollector struct{ a *Agent }

var (
	descSourceUpdates  = prometheus.NewDesc("podsrc_source_updates_total", "Full lists a source sent to the merge.", []string{"source"}, nil)
	descSourcePods     = prometheus.NewDesc("podsrc_source_pods", "Pods a source has now.", []string{"source"}, nil)
	descSourceSeen     = prometheus.NewDesc("podsrc_source_seen", "1 once a source has sent its first full list.", []string{"source"}, nil)
	descSourceRejected = prometheus.NewDesc("podsrc_source_rejected_manifests", "Manifests a source reads now that contribute no pod, because they fail to decode or validate.", []string{"source"}, nil)
	descMergeChanges   = prometheus.NewDesc("podsrc_merge_pod_changes_total", "Pods the merge found changed, by source and op.", []string{"source", "op"}, nil)
	descRelists        = prometheus.NewDesc("podsrc_pleg_relists_total", "PLEG relists, by result.", []string{"result"}, nil)
	descRelistSeconds  = prometheus.NewDesc("podsrc_pleg_relist_duration_seconds", "Duration in seconds of PLEG relists, failed ones included (the kubelet's kubelet_pleg_relist_duration_seconds).", nil, nil)
	descIntervalSecs   = prometheus.NewDesc("podsrc_pleg_relist_interval_seconds", "Interval in seconds from the start of the last successful PLEG relist to the start of the next (the kubelet's kubelet_pleg_relist_interval_seconds).", nil, nil)
	descCallSeconds    = prometheus.NewDesc("podsrc_pleg_runtime_operations_duration_seconds", "Duration in seconds of the CRI calls of PLEG relists, by operation type (as the kubelet's kubelet_runtime_operations_duration_seconds).", []string{"operation_type"}, nil)
	descCallErrors     = prometheus.NewDesc("podsrc_pleg_runtime_operations_errors_total", "Failed CRI calls of PLEG relists, by operation type (as the kubelet's kubelet_runtime_operations_errors_total).", []string{"operation_type"}, nil)
	descDropped        = prometheus.NewDesc("podsrc_pleg_events_dropped_total", "PLEG events lost to a full channel, as the kubelet would lose them.", nil, nil)
	descHealthy        = prometheus.NewDesc("podsrc_pleg_healthy", "1 when the PLEG is healthy by the kubelet's rule.", nil, nil)
	descRuntimeEvents  = prometheus.NewDesc("podsrc_pleg_runtime_events_state", "1 for the state the PLEG's following of the runtime's container events is in (off, following, broken, unsupported), 0 for the others.", []string{"state"}, nil)
)

// kubeletOperations names the CRI calls of a relist as the kubelet's
// operation_type label does.
var kubeletOperations = map[string]string{
	pleg.CallListPodSandbox:   "list_podsandbox",
	pleg.CallListContainers:   "list_containers",
	pleg.CallPodSandboxStatus: "podsandbox_status",
	pleg.CallContainerStatus:  "container_status",
}

// runtimeEventStates are the states of podsrc_pleg_runtime_events_state.
var runtimeEventStates = []string{pleg.RuntimeEventsOff, pleg.RuntimeEventsFollowing, pleg.RuntimeEventsBroken, pleg.RuntimeEventsUnsupported}

// Describe sends the descriptors.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSourceUpdates, descSourcePods, descSourceSeen, descSourceRejected, descMergeChanges,
		descRelists, descRelistSeconds, descIntervalSecs, descCallSeconds, descCallErrors, descDropped, descHealthy, descRuntimeEvents} {
		ch <- d
	}
}

// Collect reads the current values.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	// The merge has statistics of a source once it sent; every source
	// registered has its series from the start, a source not seen as 0.
	stats := map[string]merge.SourceStats{}
	for _, st := range c.a.podConfig.Stats() {
		stats[st.Source] = st
	}
	for _, name := range c.a.podConfig.Sources() {
		st := stats[name]
		ch <- prometheus.MustNewConstMetric(descSourceUpdates, prometheus.CounterValue, float64(st.Updates), name)
		ch <- prometheus.MustNewConstMetric(descSourcePods, prometheus.GaugeValue, float64(st.Pods), name)
		ch <- prometheus.MustNewConstMetric(descSourceSeen, prometheus.GaugeValue, boolValue(st.Seen), name)
		for op, n := range map[string]int64{v1alpha1.OpAdd: st.Added, v1alpha1.OpUpdate: st.Updated, v1alpha1.OpDelete: st.Deleted, v1alpha1.OpRemove: st.Removed, v1alpha1.OpReconcile: st.Reconciled} {
			ch <- prometheus.MustNewConstMetric(descMergeChanges, prometheus.CounterValue, float64(n), name, op)
		}
	}
	for _, s := range c.a.sources {
		ch <- prometheus.MustNewConstMetric(descSourceRejected, prometheus.GaugeValue, float64(len(s.src.Status().Rejected)), s.name)
	}
	if c.a.pleg == nil {
		return
	}
	st := c.a.plegStats.Stats()
	ch <- prometheus.MustNewConstMetric(descRelists, prometheus.CounterValue, float64(st.Relists-st.RelistFailures), "success")
	ch <- prometheus.MustNewConstMetric(descRelists, prometheus.CounterValue, float64(st.RelistFailures), "failure")
	ch <- histogram(descRelistSeconds, st.RelistDuration)
	ch <- histogram(descIntervalSecs, st.RelistInterval)
	for call, l := range st.Calls {
		ch <- histogram(descCallSeconds, l, kubeletOperations[call])
		ch <- prometheus.MustNewConstMetric(descCallErrors, prometheus.CounterValue, float64(l.Errors), kubeletOperations[call])
	}
	ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(st.EventsDropped))
	ok, _ := c.a.pleg.Healthy()
	ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, boolValue(ok))
	events := c.a.pleg.RuntimeEvents()
	for _, state := range runtimeEventStates {
		ch <- prometheus.MustNewConstMetric(descRuntimeEvents, prometheus.GaugeValue, boolValue(events.State == state), state)
	}
}

// histogram turns a PLEG latency, whose buckets are cumulative since the
// PLEG started, into a Prometheus histogram.
func histogram(desc *prometheus.Desc, l plegstats.LatencySummary, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(l.Buckets))
	for _, b := range l.Buckets {
		buckets[b.UpperBoundSeconds] = b.Count
	}
	return prometheus.MustNewConstHistogram(desc, l.Count, l.SumSeconds, buckets, labels...)
}

// boolValue is 1 for true and 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
