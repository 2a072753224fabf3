package agent

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// TestPodInfoContainers: a pod's info lists the containers its spec runs,
// sidecars first as kubectl counts them, so that a pod whose containers
// never started still counts them.
func TestPodInfoContainers(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	for _, tc := range []struct {
		name string
		spec v1.PodSpec
		want []string
	}{
		{"one", v1.PodSpec{Containers: []v1.Container{{Name: "web"}}, RestartPolicy: v1.RestartPolicyAlways}, []string{"web"}},
		{"init containers are not counted, sidecars are", v1.PodSpec{
			InitContainers: []v1.Container{{Name: "setup"}, {Name: "proxy", RestartPolicy: &always}},
			Containers:     []v1.Container{{Name: "web"}, {Name: "log"}}, RestartPolicy: v1.RestartPolicyAlways,
		}, []string{"proxy", "web", "log"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := podInfo(syncloop.Sourced{Pod: &v1.Pod{Spec: tc.spec}, Source: v1alpha1.SourceAPI})
			if !slices.Equal(info.Containers, tc.want) || info.RestartPolicy != string(tc.spec.RestartPolicy) {
				t.Errorf("containers %q, restart policy %q; want %q, %q", info.Containers, info.RestartPolicy, tc.want, tc.spec.RestartPolicy)
			}
		})
	}
}
