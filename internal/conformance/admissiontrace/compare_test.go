package admissiontrace

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestCompareMissesNothing changes one field of a result at a time and
// expects each change to be reported: a wrong reason, message, order of
// victims or skip fails the replay.
func TestCompareMissesNothing(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "etcd", Namespace: "kube-system", UID: "uid-etcd"}}
	victims := []v1alpha1.PodRef{{Name: "a", Namespace: "default"}, {Name: "b", Namespace: "default"}}
	admitted := admission.PodAdmission{Pod: pod, Admission: v1alpha1.Admission{Admitted: true, Preempts: victims}}
	refused := admission.PodAdmission{Pod: pod, Admission: v1alpha1.Admission{Reason: "OutOfcpu", Message: "m", Handler: v1alpha1.AdmitHandlerPredicate}}
	handlers := []string{v1alpha1.AdmitHandlerPredicate}
	tests := []struct {
		name  string
		got   []admission.PodAdmission
		want  []Result
		diffs int
	}{
		{"same admission", []admission.PodAdmission{admitted}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Admit: true, Preempted: []string{"default/a", "default/b"}}}, 0},
		{"same refusal", []admission.PodAdmission{refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m"}}, 0},
		{"victims in another order", []admission.PodAdmission{admitted}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Admit: true, Preempted: []string{"default/b", "default/a"}}}, 1},
		{"no victims", []admission.PodAdmission{admitted}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Admit: true}}, 1},
		{"admitted, kubelet refused", []admission.PodAdmission{admitted}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Preempted: []string{"default/a", "default/b"}}}, 1},
		{"another reason", []admission.PodAdmission{refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfmemory", Message: "m"}}, 1},
		{"another message", []admission.PodAdmission{refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m2"}}, 1},
		{"skipped by the kubelet", []admission.PodAdmission{refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m", Skipped: admission.SkippedTerminal}}, 1},
		{"another pod", []admission.PodAdmission{refused}, []Result{{Pod: "default/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m"}}, 1},
		{"another uid", []admission.PodAdmission{refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-x", Reason: "OutOfcpu", Message: "m"}}, 1},
		{"one result more", []admission.PodAdmission{refused, refused}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m"}}, 1},
		{"refused by a handler not chained", []admission.PodAdmission{{Pod: pod, Admission: v1alpha1.Admission{Reason: "OutOfcpu", Message: "m", Handler: v1alpha1.AdmitHandlerSysctl}}}, []Result{{Pod: "kube-system/etcd", UID: "uid-etcd", Reason: "OutOfcpu", Message: "m"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diffs := Compare(tt.got, tt.want, handlers); len(diffs) != tt.diffs {
				t.Errorf("%d differences, want %d: %q", len(diffs), tt.diffs, diffs)
			}
		})
	}
}

// TestTracesDecode reads every admission trace and checks what the replay
// relies on: the handlers are known and in the kubelet's order, and every
// step has as many results as pods.
func TestTracesDecode(t *testing.T) {
	for _, f := range Load(t) {
		at := -1
		for _, h := range f.Handlers {
			i := slices.Index(v1alpha1.AdmitHandlers, h)
			if i <= at {
				t.Errorf("%s: handlers %q are not known handlers in the kubelet's order %q", f.Base, f.Handlers, v1alpha1.AdmitHandlers)
			}
			at = i
		}
		for i, s := range f.Steps {
			if len(s.Pods) != len(s.Results) {
				t.Errorf("%s: step %d has %d pods and %d results", f.Base, i, len(s.Pods), len(s.Results))
			}
		}
	}
}
