package admission

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// slots is a chain that admits up to n pods; a pod named "critical-*"
// that does not fit preempts the oldest active pod. It records what each
// call was given.
type slots struct {
	n     int
	calls []AdmitAttributes
}

func (s *slots) Admit(in AdmitAttributes) AdmitResult {
	s.calls = append(s.calls, in)
	if in.Pod.Labels["refuse"] != "" {
		return AdmitResult{Reason: "Refused", Message: "refused", Handler: v1alpha1.AdmitHandlerSysctl}
	}
	if len(in.OtherPods) < s.n {
		return AdmitResult{Admit: true}
	}
	if len(in.Pod.Name) > 9 && in.Pod.Name[:9] == "critical-" {
		return AdmitResult{Admit: true, Preempted: in.OtherPods[:1]}
	}
	return AdmitResult{Reason: "OutOfpods", Message: fmt.Sprintf("full at %d", len(in.OtherPods)), Handler: v1alpha1.AdmitHandlerPredicate}
}

func pod(name string, created int, mutate ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC)),
	}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func phase(ph v1.PodPhase) func(*v1.Pod) { return func(p *v1.Pod) { p.Status.Phase = ph } }

func refuse(p *v1.Pod) { p.Labels = map[string]string{"refuse": "yes"} }

func mirror(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "hash"} }

type outcome struct {
	name string
	adm  v1alpha1.Admission
}

func outcomes(rs []PodAdmission) []outcome {
	var out []outcome
	for _, r := range rs {
		out = append(out, outcome{r.Pod.Name, r.Admission})
	}
	return out
}

func names(pods []*v1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func TestAdmitterAdd(t *testing.T) {
	admitted := v1alpha1.Admission{Admitted: true}
	tests := []struct {
		name       string
		slots      int
		adds       [][]*v1.Pod
		want       [][]outcome
		wantActive []string
	}{{
		name:  "creation order, ties in notification order",
		slots: 2,
		adds:  [][]*v1.Pod{{pod("c", 3), pod("a", 1), pod("b1", 2), pod("b2", 2)}},
		want: [][]outcome{{
			{"a", admitted},
			{"b1", admitted},
			{"b2", v1alpha1.Admission{Reason: "OutOfpods", Message: "full at 2", Handler: v1alpha1.AdmitHandlerPredicate}},
			{"c", v1alpha1.Admission{Reason: "OutOfpods", Message: "full at 2", Handler: v1alpha1.AdmitHandlerPredicate}},
		}},
		wantActive: []string{"a", "b1"},
	}, {
		name:  "terminal and mirror pods are skipped and hold no room",
		slots: 1,
		adds:  [][]*v1.Pod{{pod("done", 1, phase(v1.PodSucceeded)), pod("failed", 2, phase(v1.PodFailed)), pod("m", 3, mirror)}, {pod("next", 4)}},
		want: [][]outcome{{
			{"done", v1alpha1.Admission{Skipped: SkippedTerminal}},
			{"failed", v1alpha1.Admission{Skipped: SkippedTerminal}},
			{"m", v1alpha1.Admission{Skipped: SkippedMirror}},
		}, {
			{"next", admitted},
		}},
		wantActive: []string{"next"},
	}, {
		name:  "preempted pods leave the active pods",
		slots: 2,
		adds:  [][]*v1.Pod{{pod("a", 1), pod("b", 2)}, {pod("critical-x", 3)}, {pod("d", 4)}},
		want: [][]outcome{{
			{"a", admitted}, {"b", admitted},
		}, {
			{"critical-x", v1alpha1.Admission{Admitted: true, Preempts: []v1alpha1.PodRef{{Name: "a", Namespace: "default", UID: "uid-a"}}}},
		}, {
			{"d", v1alpha1.Admission{Reason: "OutOfpods", Message: "full at 2", Handler: v1alpha1.AdmitHandlerPredicate}},
		}},
		wantActive: []string{"b", "critical-x"},
	}, {
		name:  "a pod added again in a terminal phase leaves the active pods",
		slots: 1,
		adds:  [][]*v1.Pod{{pod("a", 1)}, {pod("a", 1, phase(v1.PodSucceeded))}, {pod("b", 2)}},
		want: [][]outcome{
			{{"a", admitted}},
			{{"a", v1alpha1.Admission{Skipped: SkippedTerminal}}},
			{{"b", admitted}},
		},
		wantActive: []string{"b"},
	}, {
		name:  "a pod added again and rejected leaves the active pods",
		slots: 2,
		adds:  [][]*v1.Pod{{pod("a", 1), pod("b", 2)}, {pod("a", 1, refuse)}},
		want: [][]outcome{
			{{"a", admitted}, {"b", admitted}},
			{{"a", v1alpha1.Admission{Reason: "Refused", Message: "refused", Handler: v1alpha1.AdmitHandlerSysctl}}},
		},
		wantActive: []string{"b"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAdmitter(&slots{n: tt.slots}, nil)
			for i, add := range tt.adds {
				if got := outcomes(a.Add(add)); !reflect.DeepEqual(got, tt.want[i]) {
					t.Errorf("ADD %d:\ngot  %+v\nwant %+v", i, got, tt.want[i])
				}
			}
			if got := names(a.Active()); !reflect.DeepEqual(got, tt.wantActive) {
				t.Errorf("active pods %v, want %v", got, tt.wantActive)
			}
		})
	}
}

func TestAdmitterUpdateAndRemove(t *testing.T) {
	s := &slots{n: 10}
	a := NewAdmitter(s, nil)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	a.SetNode(node)
	a.Add([]*v1.Pod{pod("a", 1), pod("b", 2), pod("c", 3)})

	a.Update(pod("b", 2, phase(v1.PodSucceeded))) // terminal: leaves
	a.Remove("uid-c")
	a.Update(pod("never", 5)) // not active: stays out
	relabeled := pod("a", 1, func(p *v1.Pod) { p.Labels = map[string]string{"v": "2"} })
	a.Update(relabeled)
	if got := names(a.Active()); !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("active pods %v, want [a]", got)
	}

	a.Add([]*v1.Pod{pod("d", 6), pod("a", 1)}) // a again: judged against the others only
	last := s.calls[len(s.calls)-2:]
	if last[0].Pod.Name != "a" || !reflect.DeepEqual(names(last[0].OtherPods), []string{}) {
		t.Errorf("a judged against %v, want no other pod", names(last[0].OtherPods))
	}
	if last[1].Pod.Name != "d" || last[1].Node.Name != node.Name || last[1].Node == node || last[1].OtherPods[0] != a.Active()[0] {
		t.Errorf("d judged on node %v against %v, want a copy of node-a and [a] (the latest a)", last[1].Node, names(last[1].OtherPods))
	}
	if got := names(a.Active()); !reflect.DeepEqual(got, []string{"a", "d"}) {
		t.Errorf("active pods %v, want [a d]", got)
	}
}
