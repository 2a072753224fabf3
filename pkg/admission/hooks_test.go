package admission

import (
	"errors"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestHooks plays a kubelet handler that asks for the node and the active
// pods and evicts one, and checks what the step makes of it.
func TestHooks(t *testing.T) {
	var h Hooks
	var sawNode *v1.Node
	var sawErr error
	step := h.Named(v1alpha1.AdmitHandlerPredicate, func(in AdmitAttributes) (bool, string, string) {
		sawNode, sawErr = h.Node()
		active := h.ActivePods()
		if len(active) == 0 {
			return false, "OutOfcpu", "no pod to preempt"
		}
		if err := h.Evict(active[0], true, nil, nil); err != nil {
			t.Fatal(err)
		}
		return true, "", ""
	})
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	other := pod("other", 1)

	got := step.Admit(AdmitAttributes{Node: node, Pod: pod("p", 2), OtherPods: []*v1.Pod{other}})
	if want := (AdmitResult{Admit: true, Preempted: []*v1.Pod{other}}); !reflect.DeepEqual(got, want) || sawNode != node || sawErr != nil {
		t.Errorf("verdict %+v, node %v (%v); want %+v and node-a", got, sawNode, sawErr, want)
	}
	got = step.Admit(AdmitAttributes{Pod: pod("p", 2)})
	if want := (AdmitResult{Reason: "OutOfcpu", Message: "no pod to preempt"}); !reflect.DeepEqual(got, want) || sawNode != nil || !errors.Is(sawErr, ErrNoNode) {
		t.Errorf("verdict %+v, node %v (%v); want %+v and ErrNoNode", got, sawNode, sawErr, want)
	}
	if h.in.Pod != nil || h.victims != nil {
		t.Errorf("the hooks hold on to the last call's input")
	}
}
