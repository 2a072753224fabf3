package agent

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// buildInfo returns podsrc_build_info, the usual build information gauge:
// always 1, its labels saying what runs (the podsrc version, the Go version
// and the minor of the kubelet whose code the agent links), so that a query
// can join them onto any other metric of the agent.
func buildInfo(kubelet kubeletminor.Minor) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "podsrc_build_info",
		Help: "A metric with a constant '1' value labeled by the podsrc version, the Go version and the kubelet minor the agent was built for.",
		ConstLabels: prometheus.Labels{
			"version":       version.Version,
			"goversion":     runtime.Version(),
			"kubelet_minor": kubelet.String(),
		},
	}, func() float64 { return 1 })
}
