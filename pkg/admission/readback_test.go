package admission

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// TestKubeletVerdict reads verdicts back from pods' statuses: a message
// the kubelet writes whole is quoted, any other only with the agent's
// opt-in; a reason not shaped as the kubelet's is dropped; a static pod's
// status, its manifest's, is never the kubelet's verdict.
func TestKubeletVerdict(t *testing.T) {
	started := metav1.Now()
	const secret = "s3cr3t-token-planted-by-a-status-writer"
	rejected := func(reason, msg string) v1.PodStatus {
		return v1.PodStatus{Phase: v1.PodFailed, Reason: reason, Message: RejectedPrefix + msg}
	}
	pod := func(source string, st v1.PodStatus) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Status: st}
		if source != "" {
			p.Annotations = map[string]string{merge.ConfigSourceAnnotation: source}
		}
		return p
	}
	cpu := "Node didn't have enough resource: cpu, requested: 4000, used: 350, capacity: 2000"
	ports := "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
	features := "Pod requires node features that are not available: UserNamespacesHostNetworkSupport, RestartAllContainers"
	tests := []struct {
		name     string
		pod      *v1.Pod
		messages bool
		want     *v1alpha1.Admission
	}{
		{"the kubelet's resource message", pod("api", rejected("OutOfcpu", cpu)), false, &v1alpha1.Admission{Reason: "OutOfcpu", Message: cpu, ReadBack: true}},
		{"the kubelet's predicate message", pod("", rejected("NodePorts", ports)), false, &v1alpha1.Admission{Reason: "NodePorts", Message: ports, ReadBack: true}},
		{"the kubelet's declared features message", pod("api", rejected("PodFeatureUnsupported", features)), false, &v1alpha1.Admission{Reason: "PodFeatureUnsupported", Message: features, ReadBack: true}},
		{"a declared features message naming more than features is left out", pod("api", rejected("PodFeatureUnsupported", features+", "+secret)), false, &v1alpha1.Admission{Reason: "PodFeatureUnsupported", ReadBack: true}},
		{"another message is left out", pod("api", rejected("SysctlForbidden", "forbidden sysctl: "+secret)), false, &v1alpha1.Admission{Reason: "SysctlForbidden", ReadBack: true}},
		{"a kubelet message with more after it is left out", pod("api", rejected("OutOfcpu", cpu+" "+secret)), false, &v1alpha1.Admission{Reason: "OutOfcpu", ReadBack: true}},
		{"another message with the opt-in", pod("api", rejected("SysctlForbidden", "forbidden sysctl: "+secret)), true, &v1alpha1.Admission{Reason: "SysctlForbidden", Message: "forbidden sysctl: " + secret, ReadBack: true}},
		{"a reason the kubelet would not give", pod("api", rejected("Out of cpu: "+secret, cpu)), false, &v1alpha1.Admission{ReadBack: true}},
		{"a started pod", pod("api", v1.PodStatus{Phase: v1.PodRunning, StartTime: &started}), false, &v1alpha1.Admission{Admitted: true, ReadBack: true}},
		{"a static pod whose manifest says Running", pod("file", v1.PodStatus{Phase: v1.PodRunning, StartTime: &started}), false, nil},
		{"a static pod whose manifest says rejected", pod("http", rejected("OutOfcpu", cpu)), true, nil},
		{"a pod not synced yet", pod("api", v1.PodStatus{Phase: v1.PodPending}), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := KubeletVerdict(tt.pod, tt.messages)
			if ok != (tt.want != nil) || (ok && !reflect.DeepEqual(got, *tt.want)) {
				t.Errorf("KubeletVerdict = %+v, %v; want %+v", got, ok, tt.want)
			}
		})
	}
}
