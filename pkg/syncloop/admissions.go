package syncloop

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// Why a verdict cannot be given.
const (
	unknownNoHandlers = "this agent build has no admit handlers of its kubelet minor"
	unknownNoNode     = "the node's Node object is not known yet (the API source is off or has not listed the node); the kubelet judges a pod against it"
)

// Admissions follows the kubelet's admission of the pods its sync loop is
// handed: every ADD is judged with the admit handlers of the agent's
// kubelet minor against the node and the pods admitted before. Where an API
// pod's status shows what the kubelet itself decided, that is taken instead
// (see admission.KubeletVerdict). Pods added before the Node is known (the file source
// sends before the API source has listed the node) wait, and are judged,
// in their order, when it comes. The verdicts live with the pods in the
// View. It is not safe for concurrent use: the SyncLoop orders its calls.
type Admissions struct {
	// admitter is nil when the agent has no admit handlers.
	admitter *admission.Admitter
	// kubeletVerdict is admission.KubeletVerdict, with the messages the
	// agent serves.
	kubeletVerdict admission.ReadBack
	// waiting are the pods added before the Node was known, in the order
	// they were added.
	waiting []*v1.Pod
}

// NewAdmissions returns the admission of the admit handlers h, nil for
// none; withMessages quotes every message the kubelet wrote on a pod it
// rejected, not only its own.
func NewAdmissions(h admission.AdmitHandler, withMessages bool) *Admissions {
	s := &Admissions{}
	s.kubeletVerdict = func(p *v1.Pod) (v1alpha1.Admission, bool) { return admission.KubeletVerdict(p, withMessages) }
	if h != nil {
		s.admitter = admission.NewAdmitter(h, s.kubeletVerdict)
	}
	return s
}

// SetNode takes the kubelet's Node object; nil when it is gone. The first
// Node judges the pods that waited for it: it returns their verdicts, by
// UID.
func (s *Admissions) SetNode(n *v1.Node) map[types.UID]v1alpha1.Admission {
	if s.admitter == nil {
		return nil
	}
	s.admitter.SetNode(n)
	if n == nil || len(s.waiting) == 0 {
		return nil
	}
	out := make(map[types.UID]v1alpha1.Admission, len(s.waiting))
	for _, r := range s.admitter.Add(s.waiting) {
		out[r.Pod.UID] = r.Admission
	}
	s.waiting = nil
	return out
}

// Apply follows one notification of the merge and returns the verdicts it
// gives, by UID: on each pod an ADD brought, and on the pods of an UPDATE,
// DELETE or RECONCILE whose status shows what the kubelet itself decided;
// nil for the other ops.
func (s *Admissions) Apply(u merge.PodUpdate) map[types.UID]v1alpha1.Admission {
	switch u.Op {
	case merge.Add:
		return s.add(u.Pods)
	case merge.Update, merge.Delete, merge.Reconcile:
		var out map[types.UID]v1alpha1.Admission
		for _, p := range u.Pods {
			if s.admitter != nil {
				s.admitter.Update(p)
			}
			s.replaceWaiting(p)
			// What the kubelet itself decided holds, either way.
			if v, ok := s.kubeletVerdict(p); ok {
				if out == nil {
					out = map[types.UID]v1alpha1.Admission{}
				}
				out[p.UID] = v
			}
		}
		return out
	case merge.Remove:
		for _, p := range u.Pods {
			if s.admitter != nil {
				s.admitter.Remove(p.UID)
			}
			s.waiting = slices.DeleteFunc(s.waiting, func(w *v1.Pod) bool { return w.UID == p.UID })
		}
	case merge.Set:
		// The kubelet's sync loop ignores SET; so does its admission.
	}
	return nil
}

// replaceWaiting puts the latest version of a waiting pod in its place.
func (s *Admissions) replaceWaiting(p *v1.Pod) {
	for i, w := range s.waiting {
		if w.UID == p.UID {
			s.waiting[i] = p
		}
	}
}

func (s *Admissions) add(pods []*v1.Pod) map[types.UID]v1alpha1.Admission {
	out := make(map[types.UID]v1alpha1.Admission, len(pods))
	switch {
	case s.admitter == nil:
		for _, p := range pods {
			out[p.UID] = s.unknownUnlessReadBack(p, unknownNoHandlers)
		}
	case !s.admitter.HasNode():
		for _, p := range pods {
			out[p.UID] = s.unknownUnlessReadBack(p, unknownNoNode)
		}
		s.waiting = append(s.waiting, pods...)
	default:
		for _, r := range s.admitter.Add(pods) {
			out[r.Pod.UID] = r.Admission
		}
	}
	return out
}

// unknownUnlessReadBack is the kubelet's own verdict on p where its status
// shows it, and otherwise a verdict unknown for why.
func (s *Admissions) unknownUnlessReadBack(p *v1.Pod, why string) v1alpha1.Admission {
	if v, ok := s.kubeletVerdict(p); ok {
		return v
	}
	return v1alpha1.Admission{Unknown: why}
}
