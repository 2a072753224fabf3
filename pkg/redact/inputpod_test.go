package redact

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// secretPod is a pod with a secret in every field InputPod clears, and the
// fields the admit handlers judge by.
func secretPod() *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "default", UID: "uid-1", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/last-applied-configuration":   "s3cr3t-annotation",
				merge.ConfigHashAnnotation:                           "hash-1",
				"container.apparmor.security.beta.kubernetes.io/web": "runtime/default",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "s3cr3t-manager"}},
		},
		Spec: v1.PodSpec{
			NodeSelector: map[string]string{"disk": "ssd"},
			Tolerations:  []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}},
			SecurityContext: &v1.PodSecurityContext{Sysctls: []v1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}},
				WindowsOptions: &v1.WindowsSecurityContextOptions{GMSACredentialSpec: ptr("s3cr3t-gmsa")}},
			// Fields no list names: a later k8s.io/api's would be alike.
			HostAliases:        []v1.HostAlias{{IP: "10.0.0.1", Hostnames: []string{"s3cr3t-alias"}}},
			DNSConfig:          &v1.PodDNSConfig{Searches: []string{"s3cr3t-dns"}},
			ServiceAccountName: "s3cr3t-sa",
			ImagePullSecrets:   []v1.LocalObjectReference{{Name: "s3cr3t-pull"}},
			Containers: []v1.Container{{
				Name: "web", Image: "nginx", Command: []string{"s3cr3t-command"}, Args: []string{"--token=s3cr3t-arg"}, WorkingDir: "/s3cr3t-wd",
				EnvFrom:            []v1.EnvFromSource{{Prefix: "s3cr3t-prefix"}},
				VolumeMounts:       []v1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}},
				RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestart}},
				Env:                []v1.EnvVar{{Name: "PASSWORD", Value: "s3cr3t-env"}},
				Ports:              []v1.ContainerPort{{ContainerPort: 80, HostPort: 8080}},
				Resources:          v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m")}},
				LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{
					Path: "/healthz?token=s3cr3t-query", Port: intstr.FromInt32(80), HTTPHeaders: []v1.HTTPHeader{{Name: "Authorization", Value: "s3cr3t-header"}},
				}}},
				Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"s3cr3t-hook"}}}},
			}},
			Volumes: []v1.Volume{{Name: "cfg", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "s3cr3t-volume"}}}},
		},
		Status: v1.PodStatus{
			Phase: v1.PodRunning, Message: "s3cr3t-message",
			Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, Message: "s3cr3t-condition"}},
		},
	}
}

func TestInputPodClearsSecrets(t *testing.T) {
	key := []byte("key-of-this-process")
	pod := secretPod()
	out := InputPod(pod, key)
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cr3t") {
		t.Fatalf("the input pod holds a secret:\n%s", raw)
	}
	if !strings.Contains(secretPod().Spec.Containers[0].Env[0].Value, "s3cr3t") || pod.Spec.Containers[0].Env == nil {
		t.Fatal("InputPod changed the pod it was given")
	}
	// What the merge and the admit handlers read stays.
	c := out.Spec.Containers[0]
	switch {
	case out.Spec.NodeSelector["disk"] != "ssd", len(out.Spec.Tolerations) != 1, out.Spec.SecurityContext.Sysctls[0].Value != "1024":
		t.Errorf("the pod's scheduling and sysctls are gone: %+v", out.Spec)
	case c.Ports[0].HostPort != 8080, c.Resources.Requests.Cpu().MilliValue() != 100, c.Image != "nginx":
		t.Errorf("the container's ports, resources or image are gone: %+v", c)
	case out.Annotations["container.apparmor.security.beta.kubernetes.io/web"] != "runtime/default", out.Annotations[merge.ConfigHashAnnotation] != "hash-1":
		t.Errorf("the kubelet's annotations are gone: %v", out.Annotations)
	case out.Spec.Volumes[0].Secret == nil, c.LivenessProbe.HTTPGet == nil, c.Lifecycle.PreStop.Exec == nil:
		t.Errorf("a volume's, a probe's or a hook's kind is gone: %+v", out.Spec)
	case len(c.VolumeMounts) != 1, len(c.RestartPolicyRules) != 1:
		t.Errorf("the container's volume mounts or restart rules, which the declared features handler reads, are gone: %+v", c)
	case out.Annotations[v1alpha1.RedactedDigestAnnotation] == "":
		t.Errorf("no digest of what was cleared: %v", out.Annotations)
	}
}

// TestInputPodDigests checks that a change only in what InputPod clears
// changes its digest (the merge sees an update, or a reconcile for a
// status message), and that a digest under another key says nothing of it.
func TestInputPodDigests(t *testing.T) {
	key := []byte("key-of-this-process")
	base := InputPod(secretPod(), key)
	statusDigest := func(p *v1.Pod) string {
		for _, c := range p.Status.Conditions {
			if c.Type == v1alpha1.RedactedDigestCondition {
				return c.Reason
			}
		}
		return ""
	}
	tests := []struct {
		name   string
		change func(*v1.Pod)
		// spec and status say which digest must change.
		spec, status bool
	}{
		{name: "nothing", change: func(*v1.Pod) {}},
		{name: "an env value", change: func(p *v1.Pod) { p.Spec.Containers[0].Env[0].Value = "other" }, spec: true},
		{name: "an argument", change: func(p *v1.Pod) { p.Spec.Containers[0].Args[0] = "--token=other" }, spec: true},
		{name: "an annotation", change: func(p *v1.Pod) { p.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "other" }, spec: true},
		{name: "a probe header", change: func(p *v1.Pod) { p.Spec.Containers[0].LivenessProbe.HTTPGet.HTTPHeaders[0].Value = "other" }, spec: true},
		{name: "a secret volume's name", change: func(p *v1.Pod) { p.Spec.Volumes[0].Secret.SecretName = "other" }, spec: true},
		{name: "the managed fields", change: func(p *v1.Pod) { p.ManagedFields = nil }},
		{name: "the status message", change: func(p *v1.Pod) { p.Status.Message = "other" }, status: true},
		{name: "a condition's message", change: func(p *v1.Pod) { p.Status.Conditions[0].Message = "other" }, status: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := secretPod()
			tt.change(p)
			out := InputPod(p, key)
			if changed := out.Annotations[v1alpha1.RedactedDigestAnnotation] != base.Annotations[v1alpha1.RedactedDigestAnnotation]; changed != tt.spec {
				t.Errorf("the spec's digest changed: %v, want %v", changed, tt.spec)
			}
			if changed := statusDigest(out) != statusDigest(base); changed != tt.status {
				t.Errorf("the status's digest changed: %v, want %v", changed, tt.status)
			}
		})
	}
	if other := InputPod(secretPod(), []byte("another process's key")); other.Annotations[v1alpha1.RedactedDigestAnnotation] == base.Annotations[v1alpha1.RedactedDigestAnnotation] {
		t.Error("two keys give the same digest")
	}
}

// TestInputPodKeepsTheKubeletsRejection checks that a rejection the
// kubelet wrote whole stays, and another keeps only the kubelet's prefix,
// by which its verdict is read back.
func TestInputPodKeepsTheKubeletsRejection(t *testing.T) {
	const whole = "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
	tests := []struct{ message, want string }{
		{message: whole, want: whole},
		{message: "Pod was rejected: Forbidden sysctl: \"s3cr3t\" not allowlisted", want: "Pod was rejected: "},
		{message: "s3cr3t", want: ""},
	}
	for _, tt := range tests {
		p := secretPod()
		p.Status.Phase, p.Status.Message = v1.PodFailed, tt.message
		if got := InputPod(p, []byte("k")).Status.Message; got != tt.want {
			t.Errorf("status message %q kept as %q, want %q", tt.message, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
