package why

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestPodRequest(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	cpu := func(name, q string) corev1.Container {
		return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}}}
	}
	sidecar := func(name, q string) corev1.Container {
		c := cpu(name, q)
		c.RestartPolicy = &always
		return c
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		// want is the request of cpu; "" when the pod asks for none.
		want string
	}{
		{name: "no pod", want: ""},
		{name: "no request", spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}, want: ""},
		{name: "containers add up", spec: corev1.PodSpec{Containers: []corev1.Container{cpu("a", "100m"), cpu("b", "200m")}}, want: "300m"},
		{name: "an init container larger than the containers",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{cpu("init", "500m")}, Containers: []corev1.Container{cpu("app", "100m")}}, want: "500m"},
		{name: "a sidecar after an init container does not add to it",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{cpu("init", "500m"), sidecar("side", "50m")}, Containers: []corev1.Container{cpu("app", "100m")}}, want: "500m"},
		{name: "a sidecar before an init container adds to it",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{sidecar("side", "100m"), cpu("init", "350m")}, Containers: []corev1.Container{cpu("app", "300m")}}, want: "450m"},
		{name: "sidecars add to the containers",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{cpu("init", "350m"), sidecar("side", "100m")}, Containers: []corev1.Container{cpu("app", "300m")}}, want: "400m"},
		{name: "overhead adds to the containers",
			spec: corev1.PodSpec{Containers: []corev1.Container{cpu("app", "100m")}, Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, want: "350m"},
		{name: "overhead adds to the largest init container",
			spec: corev1.PodSpec{InitContainers: []corev1.Container{sidecar("side", "100m"), cpu("init", "350m")}, Containers: []corev1.Container{cpu("app", "300m")},
				Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}}, want: "500m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pod *corev1.Pod
			if tc.name != "no pod" {
				pod = &corev1.Pod{Spec: tc.spec}
			}
			q, ok := podRequest(pod, corev1.ResourceCPU, true)
			if tc.want == "" {
				if ok {
					t.Errorf("request %s, want none", q.String())
				}
				return
			}
			if !ok || q.Cmp(resource.MustParse(tc.want)) != 0 {
				t.Errorf("request %s (found %v), want %s", q.String(), ok, tc.want)
			}
		})
	}
}

// TestPodRequestPerMinor: pod-level requests replace the containers' on
// the minors whose kubelet has the PodLevelResources gate on by default
// (v1.34 on), not on v1.33, where the kubelet counts the containers'. The
// minor is the Node's kubelet version, else the one the agent reproduces.
func TestPodRequestPerMinor(t *testing.T) {
	spec := corev1.PodSpec{
		Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
		Resources:  &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
		Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")},
	}
	tests := []struct {
		name       string
		node       string // the Node's kubelet version; "" when the Node is not known
		reproduced string // the agent's
		want       string
	}{
		{name: "v1.33", node: "v1.33.13", reproduced: "v1.33.13", want: "150m"},
		{name: "v1.34", node: "v1.34.4", reproduced: "v1.34.4", want: "1050m"},
		{name: "v1.35", node: "v1.35.4", reproduced: "v1.35.4", want: "1050m"},
		{name: "v1.36", node: "v1.36.3", reproduced: "v1.36.3", want: "1050m"},
		{name: "v1.37", node: "v1.37.2", reproduced: "v1.37.2", want: "1050m"},
		{name: "the Node's kubelet over the agent's", node: "v1.33.13", reproduced: "v1.34.4", want: "150m"},
		{name: "no Node: the agent's", reproduced: "v1.33.13", want: "150m"},
		{name: "neither reproduced: as the newest", node: "v1.40.0", reproduced: "", want: "1050m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &Facts{Sources: &v1alpha1.SourceList{ReproducedKubeletVersion: tc.reproduced}}
			if tc.node != "" {
				f.NodeObject.Value = &corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: tc.node}}}
			} else {
				f.NodeObject.Skipped = "not asked"
			}
			a := &analysis{f: *f}
			q, ok := podRequest(&corev1.Pod{Spec: spec}, corev1.ResourceCPU, a.podLevelResources())
			if !ok || q.Cmp(resource.MustParse(tc.want)) != 0 {
				t.Errorf("request %s (found %v), want %s", q.String(), ok, tc.want)
			}
		})
	}
}
