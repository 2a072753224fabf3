package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tracingapi "k8s.io/component-base/tracing/api/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// TestKubeletConfig: every field that may carry a credential is masked,
// the rest kept, and the configuration given is left as it is.
func TestKubeletConfig(t *testing.T) {
	const secret = "s3cret-token"
	ptr := func(s string) *string { return &s }
	tests := []struct {
		name string
		kc   kubeletv1beta1.KubeletConfiguration
		want kubeletv1beta1.KubeletConfiguration
	}{{
		name: "static pod URL and headers",
		kc: kubeletv1beta1.KubeletConfiguration{
			StaticPodPath:      "/etc/kubernetes/manifests",
			StaticPodURL:       "https://user:" + secret + "@10.0.0.1/pods?token=" + secret,
			StaticPodURLHeader: map[string][]string{"Authorization": {"Bearer " + secret}, "X-Other": {secret, secret}},
		},
		want: kubeletv1beta1.KubeletConfiguration{
			StaticPodPath:      "/etc/kubernetes/manifests",
			StaticPodURL:       "https://xxxxx@10.0.0.1/pods?token=xxxxx",
			StaticPodURLHeader: map[string][]string{"Authorization": {Masked}, "X-Other": {Masked, Masked}},
		},
	}, {
		name: "tracing endpoint, host and port",
		kc:   kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{Endpoint: ptr("user:" + secret + "@collector:4317?key=" + secret)}},
		want: kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{Endpoint: ptr("xxxxx@collector:4317?key=xxxxx")}},
	}, {
		name: "tracing endpoint, a URL",
		kc:   kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{Endpoint: ptr("https://" + secret + "@collector:4318/v1/traces")}},
		want: kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{Endpoint: ptr("https://xxxxx@collector:4318/v1/traces")}},
	}, {
		name: "tracing without an endpoint",
		kc:   kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{}},
		want: kubeletv1beta1.KubeletConfiguration{Tracing: &tracingapi.TracingConfiguration{}},
	}, {
		name: "runtime endpoints",
		kc: kubeletv1beta1.KubeletConfiguration{
			ContainerRuntimeEndpoint: "tcp://user:" + secret + "@10.0.0.1:3735?token=" + secret,
			ImageServiceEndpoint:     "unix:///run/containerd/containerd.sock",
		},
		want: kubeletv1beta1.KubeletConfiguration{
			ContainerRuntimeEndpoint: "tcp://xxxxx@10.0.0.1:3735?token=xxxxx",
			ImageServiceEndpoint:     "unix:///run/containerd/containerd.sock",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			given := tc.kc.DeepCopy()
			got := KubeletConfig(&tc.kc)
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("masked otherwise (-want +got):\n%s", diff)
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), secret) {
				t.Errorf("the masked configuration holds the secret: %s", data)
			}
			if diff := cmp.Diff(given, &tc.kc); diff != "" {
				t.Errorf("the configuration given was changed (-before +after):\n%s", diff)
			}
		})
	}
}
