package agent

import (
	"strings"
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

// TestRedactCommandLine follows credential flags whose values are the next
// argument through a whole command line.
func TestRedactCommandLine(t *testing.T) {
	r := Redacted
	tests := []struct {
		name          string
		command, args []string
		wantCommand   []string
		wantArgs      []string
	}{
		{name: "value in the next argument", command: []string{"/db", "--db-token", "hunter2"}, wantCommand: []string{"/db", "--db-token", r}},
		{name: "value at the start of args", command: []string{"/db", "--secret"}, args: []string{"hunter2", "--port", "5432"}, wantCommand: []string{"/db", "--secret"}, wantArgs: []string{r, "--port", "5432"}},
		{name: "a switch before a credential flag", command: []string{"/app", "--no-auth", "--token", "hunter2"}, wantCommand: []string{"/app", "--no-auth", "--token", r}},
		{name: "two credential flags in a row", command: []string{"/app", "--password", "--secret", "hunter2"}, wantCommand: []string{"/app", "--password", "--secret", r}},
		{name: "a switch before another flag", command: []string{"kube-apiserver", "--enable-bootstrap-token-auth", "--etcd-servers=https://127.0.0.1:2379"}, wantCommand: []string{"kube-apiserver", "--enable-bootstrap-token-auth", "--etcd-servers=https://127.0.0.1:2379"}},
		{name: "a switch before a positional argument redacts it", command: []string{"/app", "--anonymous-auth", "serve"}, wantCommand: []string{"/app", "--anonymous-auth", r}},
		{name: "credential with its value after a switch", command: []string{"/app", "--anonymous-auth", "--token=hunter2"}, wantCommand: []string{"/app", "--anonymous-auth", "--token=" + r}},
		{name: "a credential flag last", command: []string{"/app", "--api-key"}, wantCommand: []string{"/app", "--api-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			command := append([]string(nil), tt.command...)
			args := append([]string(nil), tt.args...)
			redactContainer(&[]v1.EnvVar{}, command, args)
			if strings.Join(command, " ") != strings.Join(tt.wantCommand, " ") || strings.Join(args, " ") != strings.Join(tt.wantArgs, " ") {
				t.Fatalf("got %q %q, want %q %q", command, args, tt.wantCommand, tt.wantArgs)
			}
		})
	}
}
