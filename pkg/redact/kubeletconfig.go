package redact

import (
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// KubeletConfig returns a copy of kc as the agent serves it, with what
// may carry a credential masked: the static pod URL as MaskURL masks it,
// the value of every header the kubelet sends with it (an Authorization
// header is a credential), and the endpoints it reaches (the tracing
// collector's, the container runtime's and image service's) as
// MaskEndpoint masks them. Those are the only credentials a
// KubeletConfiguration holds; its files (TLS keys, client CA) are named by
// path, not held.
func KubeletConfig(kc *kubeletv1beta1.KubeletConfiguration) *kubeletv1beta1.KubeletConfiguration {
	out := kc.DeepCopy()
	if out.StaticPodURL != "" {
		out.StaticPodURL = MaskURL(out.StaticPodURL)
	}
	for name, values := range out.StaticPodURLHeader {
		masked := make([]string, len(values))
		for i := range masked {
			masked[i] = Masked
		}
		out.StaticPodURLHeader[name] = masked
	}
	if out.Tracing != nil && out.Tracing.Endpoint != nil {
		endpoint := MaskEndpoint(*out.Tracing.Endpoint)
		out.Tracing.Endpoint = &endpoint
	}
	out.ContainerRuntimeEndpoint = MaskEndpoint(out.ContainerRuntimeEndpoint)
	out.ImageServiceEndpoint = MaskEndpoint(out.ImageServiceEndpoint)
	return out
}
