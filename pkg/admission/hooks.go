package admission

import (
	"errors"

	v1 "k8s.io/api/core/v1"
)

// ErrNoNode is what a minor's predicates are told when the Node is not
// known.
var ErrNoNode = errors.New("the node is not known")

// Callbacks are what a kubelet hands its admit handlers: its cached Node,
// its active pods (for preemption), and its kill func (eviction.KillPodFunc).
type Callbacks struct {
	Node       func() (*v1.Node, error)
	ActivePods func() []*v1.Pod
	Kill       func(pod *v1.Pod, isEvicted bool, gracePeriodOverride *int64, fn func(*v1.PodStatus)) error
}

// Judge is one of a minor's kubelet admit handlers: its Admit with the
// Input's pod and other pods, answering admit, reason and message.
type Judge func(Input) (admit bool, reason, message string)

// Hooks hand one call's Input to a minor's kubelet handlers, which ask for
// it through Callbacks (the node, the active pods), and collect the pods
// critical pod preemption evicts. A minor builds its handlers on the
// Callbacks of one Hooks and chains them with Hooks.Chain.
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

// Callbacks returns the callbacks that answer from the Input of the call
// under way and record preemption's victims.
func (h *Hooks) Callbacks() Callbacks {
	return Callbacks{Node: h.Node, ActivePods: h.ActivePods, Kill: h.Evict}
}

// Chain chains, as NewChain does, the judges of a kubelet minor (by their
// names in HandlerOrder) that were built on h's Callbacks.
func (h *Hooks) Chain(kubelet string, judges map[string]Judge, names []string) (Handlers, error) {
	var steps []Step
	for _, name := range HandlerOrder {
		if j, ok := judges[name]; ok {
			steps = append(steps, h.Step(name, j))
		}
	}
	return NewChain(kubelet, steps, names)
}

// Step makes a Step of a kubelet handler, given as judge.
func (h *Hooks) Step(name string, judge Judge) Step {
	return Step{Name: name, Admit: func(in Input) Verdict {
		h.in, h.victims = in, nil
		var v Verdict
		v.Admit, v.Reason, v.Message = judge(in)
		v.Preempted = h.victims
		h.in, h.victims = Input{}, nil
		return v
	}}
}

// Build chains a minor's kubelet judges, built on h's Callbacks, with
// podsrc's eviction handler (EvictionJudge of class) in the eviction
// manager's place, as cfg names them, and makes the verdict on a pod they
// admit unknown where cfg.Unseen says a handler podsrc cannot see may
// refuse it (WithUnseen).
func (h *Hooks) Build(kubelet string, judges map[string]Judge, cfg Config, class PodClass) (Handlers, error) {
	judges[HandlerEviction] = EvictionJudge(class)
	chain, err := h.Chain(kubelet, judges, cfg.Handlers)
	if err != nil {
		return nil, err
	}
	return WithUnseen(chain, cfg.Unseen, class.QOS), nil
}
