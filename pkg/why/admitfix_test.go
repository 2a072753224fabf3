package why

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
		{name: "pod-level requests replace the containers'",
			spec: corev1.PodSpec{Containers: []corev1.Container{cpu("app", "100m")}, Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")}}, want: "1050m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pod *corev1.Pod
			if tc.name != "no pod" {
				pod = &corev1.Pod{Spec: tc.spec}
			}
			q, ok := podRequest(pod, corev1.ResourceCPU)
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
