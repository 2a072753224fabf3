package agent

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRedactPod(t *testing.T) {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Annotations: map[string]string{
			"kubernetes.io/config.source":                      "api",
			"kubectl.kubernetes.io/last-applied-configuration": `{"env":"hunter2"}`,
		}},
		Spec: v1.PodSpec{
			InitContainers: []v1.Container{{Name: "init", Env: []v1.EnvVar{{Name: "A", Value: "hunter2"}}}},
			Containers: []v1.Container{{
				Name:    "app",
				Command: []string{"/db", "--password=hunter2", "--port=5432", "--secret"},
				Args:    []string{"hunter2", "API_KEY:hunter2", "--db-token", "hunter2", "-p", "5432", "--api-key"},
				Env: []v1.EnvVar{
					{Name: "PASSWORD", Value: "hunter2"},
					{Name: "FROM_SECRET", ValueFrom: &v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{Key: "k"}}},
				},
			}},
		},
	}
	got := redactPod(pod)
	tests := []struct {
		name, got, want string
	}{
		{name: "env value", got: got.Spec.Containers[0].Env[0].Value, want: Redacted},
		{name: "init container env value", got: got.Spec.InitContainers[0].Env[0].Value, want: Redacted},
		{name: "env from a secret keeps its reference", got: got.Spec.Containers[0].Env[1].ValueFrom.SecretKeyRef.Key, want: "k"},
		{name: "password flag", got: got.Spec.Containers[0].Command[1], want: "--password=" + Redacted},
		{name: "harmless flag", got: got.Spec.Containers[0].Command[2], want: "--port=5432"},
		{name: "colon-separated key", got: got.Spec.Containers[0].Args[1], want: "API_KEY:" + Redacted},
		{name: "credential flag keeps its name", got: got.Spec.Containers[0].Args[2], want: "--db-token"},
		{name: "credential flag's value in the next argument", got: got.Spec.Containers[0].Args[3], want: Redacted},
		{name: "credential flag's value in the first of args", got: got.Spec.Containers[0].Args[0], want: Redacted},
		{name: "harmless flag's separate value", got: got.Spec.Containers[0].Args[5], want: "5432"},
		{name: "credential flag at the end", got: got.Spec.Containers[0].Args[6], want: "--api-key"},
		{name: "kubelet annotation", got: got.Annotations["kubernetes.io/config.source"], want: "api"},
		{name: "other annotation", got: got.Annotations["kubectl.kubernetes.io/last-applied-configuration"], want: Redacted},
		{name: "original untouched", got: pod.Spec.Containers[0].Env[0].Value, want: "hunter2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
