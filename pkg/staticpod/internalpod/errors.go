package internalpod

import (
	"errors"

	v1 "k8s.io/api/core/v1"
)

// ErrClusterTrustBundle is the kubelet's rejection of a static pod with a
// ClusterTrustBundle projected volume where PreventStaticPodAPIReferences is
// off or does not exist (v1.33).
var ErrClusterTrustBundle = errors.New("static pods may not use ClusterTrustBundle projected volume sources")

// ErrResourceClaims is the kubelet's rejection of a static pod with resource
// claims where PreventStaticPodAPIReferences is off or does not exist.
var ErrResourceClaims = errors.New("static pods may not use ResourceClaims")

// CheckTrustBundlesAndClaims is the kubelet's older check of a single static
// pod, from before PreventStaticPodAPIReferences: no ClusterTrustBundle
// projected volume and no resource claims.
func CheckTrustBundlesAndClaims(pod *v1.Pod) error {
	for _, vol := range pod.Spec.Volumes {
		if vol.Projected == nil {
			continue
		}
		for _, src := range vol.Projected.Sources {
			if src.ClusterTrustBundle != nil {
				return ErrClusterTrustBundle
			}
		}
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return ErrResourceClaims
	}
	return nil
}
