package redact

import (
	"encoding/json"
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// TestKubeletConfig: the static pod URL's credentials and its headers'
// values are masked, the rest kept, and the configuration given is left
// as it is.
func TestKubeletConfig(t *testing.T) {
	const secret = "s3cret-token"
	kc := &kubeletv1beta1.KubeletConfiguration{
		StaticPodPath:      "/etc/kubernetes/manifests",
		StaticPodURL:       "https://user:" + secret + "@10.0.0.1/pods?token=" + secret,
		StaticPodURLHeader: map[string][]string{"Authorization": {"Bearer " + secret}, "X-Other": {secret, secret}},
	}
	got := KubeletConfig(kc)
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) {
		t.Errorf("the masked configuration holds the secret: %s", data)
	}
	if got.StaticPodPath != kc.StaticPodPath || !strings.HasPrefix(got.StaticPodURL, "https://") || len(got.StaticPodURLHeader["X-Other"]) != 2 || got.StaticPodURLHeader["Authorization"][0] != Masked {
		t.Errorf("masked %+v, want the path, the URL's scheme and host, every header with its values masked", got)
	}
	if !strings.Contains(kc.StaticPodURL, secret) || kc.StaticPodURLHeader["Authorization"][0] != "Bearer "+secret {
		t.Errorf("the configuration given was changed: %+v", kc)
	}
}
