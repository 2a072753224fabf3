package admission

import (
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
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

// AdmitFunc is one of a minor's kubelet admit handlers: its Admit with the
// AdmitAttributes' pod and other pods, answering admit, reason and message.
type AdmitFunc func(AdmitAttributes) (admit bool, reason, message string)

// Hooks hand one call's AdmitAttributes to a minor's kubelet handlers, which ask for
// it through Callbacks (the node, the active pods), and collect the pods
// critical pod preemption evicts. A minor builds its handlers on the
// Callbacks of one Hooks and chains them with Hooks.Chain.
type Hooks struct {
	in      AdmitAttributes
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
func (h *Hooks) ActivePods() []*v1.Pod { return h.in.OtherPods }

// Evict is preemption's kill func (eviction.KillPodFunc): it records the
// victim where the kubelet kills it.
func (h *Hooks) Evict(pod *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
	h.victims = append(h.victims, pod)
	return nil
}

// Callbacks returns the callbacks that answer from the AdmitAttributes of the call
// under way and record preemption's victims.
func (h *Hooks) Callbacks() Callbacks {
	return Callbacks{Node: h.Node, ActivePods: h.ActivePods, Kill: h.Evict}
}

// Chain chains, as NewChain does, the admit funcs of a kubelet minor (by their
// names in v1alpha1.AdmitHandlers) that were built on h's Callbacks.
func (h *Hooks) Chain(kubelet string, funcs map[string]AdmitFunc, names []string) (AdmitHandler, error) {
	var steps []NamedAdmitHandler
	for _, name := range v1alpha1.AdmitHandlers {
		if j, ok := funcs[name]; ok {
			steps = append(steps, h.Named(name, j))
		}
	}
	return NewChain(kubelet, steps, names)
}

// Named makes a NamedAdmitHandler of a kubelet handler, given as f.
func (h *Hooks) Named(name string, f AdmitFunc) NamedAdmitHandler {
	return NamedAdmitHandler{Name: name, Admit: func(in AdmitAttributes) AdmitResult {
		h.in, h.victims = in, nil
		var v AdmitResult
		v.Admit, v.Reason, v.Message = f(in)
		v.Preempted = h.victims
		h.in, h.victims = AdmitAttributes{}, nil
		return v
	}}
}

// Build chains a minor's kubelet admit funcs, built on h's Callbacks, with
// podsrc's eviction handler (EvictionAdmitFunc of class) in the eviction
// manager's place, as cfg names them, and makes the verdict on a pod they
// admit unknown where cfg.Unseen says a handler podsrc cannot see may
// refuse it (WithUnseen).
func (h *Hooks) Build(kubelet string, funcs map[string]AdmitFunc, cfg Config, class PodClass) (AdmitHandler, error) {
	funcs[v1alpha1.AdmitHandlerEviction] = EvictionAdmitFunc(class)
	chain, err := h.Chain(kubelet, funcs, cfg.AdmitHandlers)
	if err != nil {
		return nil, err
	}
	return WithUnseen(chain, cfg.Unseen, class.QOS), nil
}
