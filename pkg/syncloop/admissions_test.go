package syncloop

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// roomFor admits pods while fewer than n others are active, and refuses
// the rest as the predicates refuse a pod beyond the node's pod count.
type roomFor int

func (n roomFor) Admit(in admission.AdmitAttributes) admission.AdmitResult {
	if len(in.OtherPods) < int(n) {
		return admission.AdmitResult{Admit: true}
	}
	return admission.AdmitResult{Reason: "OutOfpods", Message: "Node didn't have enough resource: pods", Handler: v1alpha1.AdmitHandlerPredicate}
}

func admissionPod(name string, created int, status v1.PodStatus) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), CreationTimestamp: metav1.Unix(int64(created), 0)},
		Status:     status,
	}
}

// TestAdmissions follows notifications through the admissions into a view:
// verdicts unknown without handlers or without the node, judged in
// creation order once both are there, the kubelet's own verdict read back
// from a pod's status where it shows one (and the active pods following
// it), and a removed pod's room and verdict gone.
func TestAdmissions(t *testing.T) {
	started := metav1.Now()
	const cpuMessage = "Node didn't have enough resource: cpu, requested: 4000, used: 0, capacity: 2000"
	rejected := v1.PodStatus{Phase: v1.PodFailed, Reason: "OutOfcpu", Message: admission.RejectedPrefix + cpuMessage, StartTime: &started}
	running := v1.PodStatus{Phase: v1.PodRunning, StartTime: &started}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	admitted := v1alpha1.Admission{Admitted: true}
	outOfPods := v1alpha1.Admission{Reason: "OutOfpods", Message: "Node didn't have enough resource: pods", Handler: v1alpha1.AdmitHandlerPredicate}

	type step struct {
		op      merge.Op
		pods    []*v1.Pod
		node    *v1.Node
		want    map[types.UID]v1alpha1.Admission
		wantGet map[types.UID]*v1alpha1.Admission
	}
	tests := []struct {
		name     string
		handlers admission.AdmitHandler
		steps    []step
	}{
		{name: "no admit handlers", steps: []step{{
			op: merge.Add, pods: []*v1.Pod{admissionPod("a", 1, v1.PodStatus{}), admissionPod("r", 2, rejected)},
			want: map[types.UID]v1alpha1.Admission{
				"uid-a": {Unknown: unknownNoHandlers},
				"uid-r": {Reason: "OutOfcpu", Message: cpuMessage, ReadBack: true},
			},
		}}},
		{name: "pods added before the node wait for it", handlers: roomFor(1), steps: []step{
			{op: merge.Add, pods: []*v1.Pod{admissionPod("b", 2, v1.PodStatus{}), admissionPod("a", 1, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-a": {Unknown: unknownNoNode}, "uid-b": {Unknown: unknownNoNode}}},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("gone", 0, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-gone": {Unknown: unknownNoNode}}},
			{op: merge.Remove, pods: []*v1.Pod{admissionPod("gone", 0, v1.PodStatus{})}},
			// The node judges them in creation order, the removed one
			// no more; the first holds the room.
			{node: node, wantGet: map[types.UID]*v1alpha1.Admission{"uid-a": &admitted, "uid-b": &outOfPods, "uid-gone": nil}},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("c", 3, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-c": outOfPods}},
		}},
		{name: "judged in creation order", handlers: roomFor(1), steps: []step{
			{node: node},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("late", 2, v1.PodStatus{}), admissionPod("early", 1, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-early": admitted, "uid-late": outOfPods}},
			// The admitted pod goes: there is room again.
			{op: merge.Remove, pods: []*v1.Pod{admissionPod("early", 1, v1.PodStatus{})},
				wantGet: map[types.UID]*v1alpha1.Admission{"uid-early": nil, "uid-late": &outOfPods}},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("next", 3, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-next": admitted}},
		}},
		{name: "the kubelet's verdicts read back", handlers: roomFor(1), steps: []step{
			{node: node},
			// Started by the kubelet: admitted, and it holds the room.
			{op: merge.Add, pods: []*v1.Pod{admissionPod("old", 1, running), admissionPod("new", 2, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-old": {Admitted: true, ReadBack: true}, "uid-new": outOfPods}},
			// The kubelet rejects the running pod after its restart: its
			// words hold, and the room is free.
			{op: merge.Update, pods: []*v1.Pod{admissionPod("old", 1, rejected)},
				wantGet: map[types.UID]*v1alpha1.Admission{"uid-old": {Reason: "OutOfcpu", Message: cpuMessage, ReadBack: true}}},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("third", 3, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-third": admitted}},
			// The kubelet started the pod podsrc had refused: its word
			// holds, and the pod holds the room.
			{op: merge.Update, pods: []*v1.Pod{admissionPod("new", 2, running)},
				wantGet: map[types.UID]*v1alpha1.Admission{"uid-new": {Admitted: true, ReadBack: true}}},
			{op: merge.Add, pods: []*v1.Pod{admissionPod("fourth", 4, v1.PodStatus{})},
				want: map[types.UID]v1alpha1.Admission{"uid-fourth": outOfPods}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewAdmissions(tt.handlers, false)
			// The verdicts live with the pods in the view.
			view := NewView()
			for i, st := range tt.steps {
				if st.node != nil {
					view.SetAdmissions(s.SetNode(st.node))
				} else {
					u := merge.PodUpdate{Op: st.op, Source: v1alpha1.SourceAPI, Pods: st.pods}
					got := s.Apply(u)
					if st.want != nil && !reflect.DeepEqual(got, st.want) {
						t.Errorf("step %d (%v): verdicts\n%+v\nwant\n%+v", i, st.op, got, st.want)
					}
					view.Apply(u, got)
				}
				for uid, want := range st.wantGet {
					var v v1alpha1.Admission
					p, ok := view.Get(uid)
					if ok = ok && p.Admission != nil; ok {
						v = *p.Admission
					}
					if ok != (want != nil) || (ok && !reflect.DeepEqual(v, *want)) {
						t.Errorf("step %d: get(%s) = %+v, %v; want %+v", i, uid, v, ok, want)
					}
				}
			}
		})
	}
}
