// Package admission reproduces what the kubelet's HandlePodAdditions does
// with the pods of one ADD notification: the order it takes them in, the
// pods it does not take to admission, and the active pods each one is
// judged against. The judging itself is the kubelet minor's own chain of
// admit handlers, which each minor's module builds from its kubelet code
// and hands over as a Handlers.
package admission

import (
	"context"

	v1 "k8s.io/api/core/v1"
)

// The admit handlers a minor's chain may hold, by the names the
// conformance traces give them, in the order the kubelet chains them.
const (
	// HandlerEviction is the kubelet's eviction manager: node pressure
	// (the Node's MemoryPressure, DiskPressure and PIDPressure conditions)
	// against the pod's criticality, QoS class and tolerations.
	HandlerEviction = "eviction"
	// HandlerSysctl is the kubelet's sysctl allowlist: the safe sysctls
	// and the kubelet's allowedUnsafeSysctls.
	HandlerSysctl = "sysctl"
	// HandlerPredicate is the kubelet's general predicates (resources,
	// node name, selector and affinity, host ports, OS, NoExecute taints),
	// with critical pod preemption as its failure handler.
	HandlerPredicate = "predicate"
	// HandlerPodFeatures is the kubelet's pod features handler.
	HandlerPodFeatures = "podfeatures"
	// HandlerDeclaredFeatures is the kubelet's declared features handler
	// (v1.36 on, gate NodeDeclaredFeatures): the node features a pod needs
	// against those the kubelet declares in its Node's status.
	HandlerDeclaredFeatures = "declaredfeatures"
)

// HandlerOrder lists the handler names in the order the kubelet chains
// them; a Config's Handlers follow it.
var HandlerOrder = []string{HandlerEviction, HandlerSysctl, HandlerPredicate, HandlerPodFeatures, HandlerDeclaredFeatures}

// Config configures a minor's chain.
type Config struct {
	// Handlers names the handlers to chain, a subset of HandlerOrder in
	// its order; nil chains all of them.
	Handlers []string
	// AllowedUnsafeSysctls is the kubelet's allowedUnsafeSysctls.
	AllowedUnsafeSysctls []string
	// Unseen is what the kubelet's configuration says of the handlers
	// that judge from node-private state podsrc does not read.
	Unseen Unseen
}

// NewHandlers builds one kubelet minor's chain of admit handlers: the New
// of the minor's admission package (cmd/podsrc-agent/kubelet13N/admission).
type NewHandlers func(ctx context.Context, cfg Config) (Handlers, error)

// Handlers is one kubelet minor's chain of admit handlers. Admit need not
// be safe for concurrent use: an Admitter calls it from one goroutine.
type Handlers interface {
	// Admit judges one pod as the kubelet's admission does when the pod
	// is added.
	Admit(in Input) Verdict
}

// Input is what a pod is judged on.
type Input struct {
	// Node is the kubelet's Node object; nil when it is not known, which
	// the predicates judge as the kubelet does when it cannot get its node.
	Node *v1.Node
	// Pod is the pod judged.
	Pod *v1.Pod
	// Others are the active pods other than Pod, in the order they were
	// admitted. They are shared with the Admitter and must not be changed.
	Others []*v1.Pod
}

// Verdict is the chain's answer on one pod.
type Verdict struct {
	// Admit is true when every handler admitted the pod.
	Admit bool
	// Reason and Message are the words of the handler that refused it.
	Reason  string
	Message string
	// Handler names the handler that refused it.
	Handler string
	// Unknown, on a pod every handler podsrc reproduces admits, says what
	// a handler of the kubelet's chain judges from that podsrc cannot see:
	// the kubelet may refuse the pod there.
	Unknown string
	// Preempted are the pods critical pod preemption evicted to admit
	// Pod, in the order it evicted them; they are evicted even when a
	// later handler refuses Pod.
	Preempted []*v1.Pod
}
