package agent

import (
	"net/http"
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/redact"
)

// TestKubeletConfigServedMasked: /kubeletconfig serves the configuration
// the agent read without the static pod URL's credentials or its headers'
// values, even with --expose-pod-specs, and says why when it read none.
func TestKubeletConfigServedMasked(t *testing.T) {
	const planted = "planted-s3cret"
	kc := &kubeletv1beta1.KubeletConfiguration{
		StaticPodPath:      "/etc/kubernetes/manifests",
		StaticPodURL:       "https://kubelet:" + planted + "@10.0.0.1/pods?token=" + planted,
		StaticPodURLHeader: map[string][]string{"Authorization": {"Bearer " + planted}},
	}
	for _, expose := range []bool{false, true} {
		ta := startAgent(t, func(c *Config) {
			c.Node.Kubelet = kc
			c.ExposePodSpecs = expose
		})
		code, body := ta.get(t, v1alpha1.KubeletConfigPath)
		if code != http.StatusOK || strings.Contains(string(body), planted) {
			t.Fatalf("expose %v: %d %s; want 200 without the planted secret", expose, code, body)
		}
		var got v1alpha1.KubeletConfig
		ta.getJSON(t, v1alpha1.KubeletConfigPath, &got)
		if got.Kind != v1alpha1.KindKubeletConfig || got.NodeName != "node-1" || got.Config == nil ||
			got.Config.StaticPodPath != kc.StaticPodPath || got.Config.StaticPodURLHeader["Authorization"][0] != redact.Masked {
			t.Errorf("expose %v: %+v, want node-1's configuration, masked", expose, got)
		}
	}
	ta := startAgent(t, nil)
	var got v1alpha1.KubeletConfig
	ta.getJSON(t, v1alpha1.KubeletConfigPath, &got)
	if got.Config != nil || !strings.Contains(got.Reason, "--kubelet-config") {
		t.Errorf("without a configuration: %+v, want none and the flag", got)
	}
}
