// Package admission reproduces what the kubelet's HandlePodAdditions does
// with the pods of one ADD notification: the order it takes them in, the
// pods it does not take to admission, and the active pods each one is
// judged against. The judging itself is the kubelet minor's own chain of
// admit handlers, which each minor's module builds from its kubelet code
// and hands over as an AdmitHandler.
//
// The names follow the kubelet's lifecycle package: an AdmitHandler (its
// PodAdmitHandler) judges AdmitAttributes (its PodAdmitAttributes) and
// answers an AdmitResult (its PodAdmitResult). The Admitter gives each pod
// of an ADD its PodAdmission: the pod with the wire's v1alpha1.Admission.
package admission

import (
	"context"

	v1 "k8s.io/api/core/v1"
)

// Config configures a minor's chain.
type Config struct {
	// AdmitHandlers names the handlers to chain, a subset of
	// v1alpha1.AdmitHandlers in its order; nil chains all of them.
	AdmitHandlers []string
	// AllowedUnsafeSysctls is the kubelet's allowedUnsafeSysctls.
	AllowedUnsafeSysctls []string
	// Unseen is what the kubelet's configuration says of the handlers
	// that judge from node-private state podsrc does not read.
	Unseen Unseen
}

// NewAdmitHandler builds one kubelet minor's chain of admit handlers: the
// New of the minor's admission package
// (cmd/podsrc-agent/kubelet13N/admission).
type NewAdmitHandler func(ctx context.Context, cfg Config) (AdmitHandler, error)

// AdmitHandler is one kubelet minor's chain of admit handlers, or one
// handler of it. Admit need not be safe for concurrent use: an Admitter
// calls it from one goroutine.
type AdmitHandler interface {
	// Admit judges one pod as the kubelet's admission does when the pod
	// is added.
	Admit(attrs AdmitAttributes) AdmitResult
}

// AdmitAttributes are what a pod is judged on.
type AdmitAttributes struct {
	// Node is the kubelet's Node object; nil when it is not known, which
	// the predicates judge as the kubelet does when it cannot get its node.
	Node *v1.Node
	// Pod is the pod judged.
	Pod *v1.Pod
	// OtherPods are the active pods other than Pod, in the order they were
	// admitted. They are shared with the Admitter and must not be changed.
	OtherPods []*v1.Pod
}

// AdmitResult is an admit handler's answer on one pod.
type AdmitResult struct {
	// Admit is true when every handler admitted the pod.
	Admit bool
	// Reason and Message are the words of the handler that refused it.
	Reason  string
	Message string
	// Handler names the handler that refused it (one of
	// v1alpha1.AdmitHandlers).
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
