package pleg

import "github.com/prometheus/client_golang/prometheus"

// The upper bounds, in seconds, of the latency histograms Stats reports and
// the agent serves as Prometheus histograms. Where the kubelet has the same
// measure, its buckets are the kubelet's, so that the two compare bucket by
// bucket.
var (
	// RelistBuckets are the kubelet's for kubelet_pleg_relist_duration_seconds
	// and kubelet_pleg_relist_interval_seconds: prometheus.DefBuckets.
	RelistBuckets = prometheus.DefBuckets
	// CallBuckets are the kubelet's for
	// kubelet_runtime_operations_duration_seconds, the duration of its CRI
	// calls: prometheus.ExponentialBuckets(.005, 2.5, 14).
	CallBuckets = prometheus.ExponentialBuckets(.005, 2.5, 14)
	// inspectionBuckets, for pod status inspections, which the kubelet does
	// not measure, reach from 100µs to a minute.
	inspectionBuckets = []float64{
		.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05,
		.1, .25, .5, 1, 2.5, 5, 10, 30, 60,
	}
)
