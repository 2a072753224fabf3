package nodeenv

import (
	"time"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// ShutdownGracePeriod is kc's shutdownGracePeriod, or the longest
// of its shutdownGracePeriodByPodPriority: non-zero when the kubelet's
// node shutdown manager is on.
func ShutdownGracePeriod(kc *kubeletv1beta1.KubeletConfiguration) time.Duration {
	longest := kc.ShutdownGracePeriod.Duration
	for _, p := range kc.ShutdownGracePeriodByPodPriority {
		if d := time.Duration(p.ShutdownGracePeriodSeconds) * time.Second; d > longest {
			longest = d
		}
	}
	return longest
}
