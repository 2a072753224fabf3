package redact

import (
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// KubeletConfig returns a copy of kc as the agent serves it: the static
// pod URL masked as MaskURL masks it, and the value of every header the
// kubelet sends with it masked (an Authorization header is a credential).
// Those are the only credentials a KubeletConfiguration holds; its files
// (TLS keys, client CA) are named by path, not held.
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
	return out
}
