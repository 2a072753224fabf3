package admission

import (
	"errors"

	v1 "k8s.io/api/core/v1"
)

// ErrNoNode is what a minor's predicates are told when the Node is not
// known.
var ErrNoNode = errors.New("the node is not known")

// Hooks hand one call's Input to a minor's kubelet handlers, which ask for
// it through callbacks (the node, the active pods), and collect the pods
// critical pod preemption evicts. A minor builds its handlers on one Hooks
// and makes each a Step with Hooks.Step.
type Hooks struct {
	in      Input
	victims []*v1.Pod
}

// Node answers the predicates' request for the kubelet's Node.
func (h *Hooks) Node() (*v1.Node, error) {
	if h.in.Node == nil {
		return nil, ErrNoNode
	}
	return h.in.Node, nil
}

// ActivePods answers preemption's request for the active pods. The
// kubelet's list also holds the pod judged, which preemption never picks:
// a critical pod does not preempt one as critical and of its priority.
func (h *Hooks) ActivePods() []*v1.Pod { return h.in.Others }

// Evict is preemption's kill func (eviction.KillPodFunc): it records the
// victim where the kubelet kills it.
func (h *Hooks) Evict(pod *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
	h.victims = append(h.victims, pod)
	return nil
}

// Step makes a Step of a kubelet handler, given as judge: its Admit with
// the Input's pod and other pods, answering admit, reason and message.
func (h *Hooks) Step(name string, judge func(Input) (bool, string, string)) Step {
	return Step{Name: name, Admit: func(in Input) Verdict {
		h.in, h.victims = in, nil
		var v Verdict
		v.Admit, v.Reason, v.Message = judge(in)
		v.Preempted = h.victims
		h.in, h.victims = Input{}, nil
		return v
	}}
}
