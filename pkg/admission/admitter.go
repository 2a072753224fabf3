package admission

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Why HandlePodAdditions does not take a pod to admission.
const (
	// SkippedTerminal is a pod whose phase is already Succeeded or Failed.
	SkippedTerminal = "terminal phase: not taken to admission"
	// SkippedMirror is a mirror pod: the kubelet hands it to the static
	// pod it mirrors instead.
	SkippedMirror = "mirror pod: not taken to admission"
)

// PodAdmission is what became of one pod of an ADD notification.
type PodAdmission struct {
	// Pod is the pod as the notification carried it.
	Pod *v1.Pod
	// Admission is the verdict, or why the pod was skipped.
	Admission v1alpha1.Admission
}

// Admitter follows the kubelet's admission of added pods on one node: it
// keeps the node and the active pods, and judges each ADD notification
// with one minor's AdmitHandler. It is a value owned by one goroutine; it is
// not safe for concurrent use.
type Admitter struct {
	handlers AdmitHandler
	readBack ReadBack
	node     *v1.Node
	active   activeSet
}

// ReadBack returns the kubelet's own verdict on a pod where the pod shows
// it (an API pod's status), and false where it does not.
type ReadBack func(*v1.Pod) (v1alpha1.Admission, bool)

// NewAdmitter returns an Admitter with no node and no active pods that
// judges pods with h. readBack, when not nil, is asked first: a pod the
// kubelet has already judged keeps the kubelet's verdict, and the active
// pods follow it.
func NewAdmitter(h AdmitHandler, readBack ReadBack) *Admitter {
	return &Admitter{handlers: h, readBack: readBack, active: newActiveSet()}
}

// SetNode sets the kubelet's Node object the next pods are judged on; nil
// for a node not known. The Admitter keeps a copy: the kubelet's handlers
// may write to the node they are given (the predicates add the OS label to
// the labels of a node that lacks it), as they do to the kubelet's cached
// Node until it is next updated.
func (a *Admitter) SetNode(node *v1.Node) { a.node = node.DeepCopy() }

// HasNode reports whether the Admitter has a Node to judge pods on.
func (a *Admitter) HasNode() bool { return a.node != nil }

// Add judges the pods of one ADD notification as HandlePodAdditions does,
// and returns one PodAdmission per pod in the order the kubelet takes them: by
// creation time; mirror pods and pods already terminal are skipped and
// hold no room; every other pod is judged against the active pods, joins
// them when admitted, and the pods its admission preempts leave them.
func (a *Admitter) Add(pods []*v1.Pod) []PodAdmission {
	results := make([]PodAdmission, 0, len(pods))
	for _, pod := range inAdmissionOrder(pods) {
		results = append(results, PodAdmission{Pod: pod, Admission: a.admit(pod)})
	}
	return results
}

func (a *Admitter) admit(pod *v1.Pod) v1alpha1.Admission {
	if _, ok := pod.Annotations[v1.MirrorPodAnnotationKey]; ok {
		return v1alpha1.Admission{Skipped: SkippedMirror}
	}
	if v, ok := a.kubeletVerdict(pod); ok {
		return v
	}
	if terminal(pod) {
		// The pod manager keeps this version: a pod added again in a
		// terminal phase is no longer active.
		a.active.remove(pod.UID)
		return v1alpha1.Admission{Skipped: SkippedTerminal}
	}
	v := a.handlers.Admit(AdmitAttributes{Node: a.node, Pod: pod, OtherPods: a.active.others(pod.UID)})
	out := v1alpha1.Admission{Admitted: v.Admit}
	if v.Admit && v.Unknown != "" {
		// The pod holds room as the kubelet most likely admitted it; its
		// verdict is not given.
		out = v1alpha1.Admission{Unknown: v.Unknown}
	}
	if !v.Admit {
		// A rejected pod is failed, so no longer active if it was.
		a.active.remove(pod.UID)
		out.Reason, out.Message, out.Handler = v.Reason, v.Message, v.Handler
	}
	// The kubelet evicts the victims while it judges the pod: they are gone
	// even if a later handler refuses it.
	for _, victim := range v.Preempted {
		a.active.remove(victim.UID)
		out.Preempts = append(out.Preempts, v1alpha1.PodRef{Name: victim.Name, Namespace: victim.Namespace, UID: victim.UID})
	}
	if v.Admit {
		a.active.add(pod)
	}
	return out
}

// Update takes the latest version of a pod from an UPDATE, DELETE or
// RECONCILE notification: an active pod is judged against from now on as
// it is now, and leaves the active pods once its phase is terminal. A pod
// that is not active (rejected, skipped, never added) stays so, unless the
// kubelet's own verdict read back says it admitted the pod.
func (a *Admitter) Update(pod *v1.Pod) {
	if _, ok := a.kubeletVerdict(pod); ok {
		return
	}
	if terminal(pod) {
		a.active.remove(pod.UID)
		return
	}
	a.active.replace(pod)
}

// kubeletVerdict asks readBack for the kubelet's own verdict on pod and,
// when there is one, makes the active pods follow it.
func (a *Admitter) kubeletVerdict(pod *v1.Pod) (v1alpha1.Admission, bool) {
	if a.readBack == nil {
		return v1alpha1.Admission{}, false
	}
	v, ok := a.readBack(pod)
	if !ok {
		return v, false
	}
	if v.Admitted {
		a.active.add(pod)
	} else {
		a.active.remove(pod.UID)
	}
	return v, true
}

// Remove forgets a pod the kubelet no longer has (a REMOVE notification).
func (a *Admitter) Remove(uid types.UID) { a.active.remove(uid) }

// Active returns the active pods in the order they were admitted.
func (a *Admitter) Active() []*v1.Pod {
	out := make([]*v1.Pod, len(a.active.pods))
	copy(out, a.active.pods)
	return out
}

func terminal(pod *v1.Pod) bool {
	return pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
}
