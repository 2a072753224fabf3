package plegstats

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
)
