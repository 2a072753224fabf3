package agent

import (
	"os"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
)

// Why a verdict cannot be given.
const (
	unknownNoHandlers = "this agent build has no admit handlers of its kubelet minor"
	unknownNoNode     = "the node's Node object is not known yet (the API source is off or has not listed the node); the kubelet judges a pod against it"
)

// admissions follows the kubelet's admission of the pods its sync loop is
// handed: every ADD is judged with the admit handlers of the agent's
// kubelet minor against the node and the pods admitted before, and each
// configured pod keeps its verdict until it is removed. Where an API pod's
// status shows what the kubelet itself decided, that is taken instead (see
// admission.KubeletVerdict). Pods added before the Node is known (the file source
// sends before the API source has listed the node) wait, and are judged,
// in their order, when it comes. It has a lock of its own, so that the
// agent judges an ADD (the kubelet's handlers rebuild the node's resource
// summary over every active pod: milliseconds at thousands of pods) without
// holding its viewMu, before the pods enter the view: no reader sees an
// added pod without its verdict. When both are held, viewMu is taken first.
type admissions struct {
	mu sync.Mutex
	// admitter is nil when the agent has no admit handlers.
	admitter *admission.Admitter
	verdicts map[types.UID]v1alpha1.Admission
	// kubeletVerdict is admission.KubeletVerdict, with the messages the
	// agent serves.
	kubeletVerdict admission.ReadBack
	// waiting are the pods added before the Node was known, in the order
	// they were added.
	waiting []*v1.Pod
}

func newAdmissions(h admission.Handlers, withMessages bool) *admissions {
	s := &admissions{verdicts: map[types.UID]v1alpha1.Admission{}}
	s.kubeletVerdict = func(p *v1.Pod) (v1alpha1.Admission, bool) { return admission.KubeletVerdict(p, withMessages) }
	if h != nil {
		s.admitter = admission.NewAdmitter(h, s.kubeletVerdict)
	}
	return s
}

// setNode takes the kubelet's Node object; nil when it is gone. The first
// Node judges the pods that waited for it.
func (s *admissions) setNode(n *v1.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admitter == nil {
		return
	}
	s.admitter.SetNode(n)
	if n != nil && len(s.waiting) > 0 {
		for _, r := range s.admitter.Add(s.waiting) {
			s.verdicts[r.Pod.UID] = r.Admission
		}
		s.waiting = nil
	}
}

// apply follows one notification of the merge and returns the verdict on
// each pod an ADD brought, by UID; nil for the other ops.
func (s *admissions) apply(u merge.PodUpdate) map[types.UID]v1alpha1.Admission {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch u.Op {
	case merge.Add:
		return s.add(u.Pods)
	case merge.Update, merge.Delete, merge.Reconcile:
		for _, p := range u.Pods {
			if s.admitter != nil {
				s.admitter.Update(p)
			}
			s.replaceWaiting(p)
			// What the kubelet itself decided holds, either way.
			if v, ok := s.kubeletVerdict(p); ok {
				s.verdicts[p.UID] = v
			}
		}
	case merge.Remove:
		for _, p := range u.Pods {
			if s.admitter != nil {
				s.admitter.Remove(p.UID)
			}
			s.waiting = slices.DeleteFunc(s.waiting, func(w *v1.Pod) bool { return w.UID == p.UID })
			delete(s.verdicts, p.UID)
		}
	case merge.Set:
		// The kubelet's sync loop ignores SET; so does its admission.
	}
	return nil
}

// replaceWaiting puts the latest version of a waiting pod in its place.
func (s *admissions) replaceWaiting(p *v1.Pod) {
	for i, w := range s.waiting {
		if w.UID == p.UID {
			s.waiting[i] = p
		}
	}
}

func (s *admissions) add(pods []*v1.Pod) map[types.UID]v1alpha1.Admission {
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
	for uid, v := range out {
		s.verdicts[uid] = v
	}
	return out
}

// unknownUnlessReadBack is the kubelet's own verdict on p where its status
// shows it, and otherwise a verdict unknown for why.
func (s *admissions) unknownUnlessReadBack(p *v1.Pod, why string) v1alpha1.Admission {
	if v, ok := s.kubeletVerdict(p); ok {
		return v
	}
	return v1alpha1.Admission{Unknown: why}
}

// get returns the verdict on the pod with the UID.
func (s *admissions) get(uid types.UID) (v1alpha1.Admission, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.verdicts[uid]
	return v, ok
}

// appArmorEnabledPath is where the kernel says whether AppArmor is
// enabled, as the kubelet's AppArmor validator reads it.
const appArmorEnabledPath = "/sys/module/apparmor/parameters/enabled"

// unseenState is what the kubelet's settings k and the host under
// hostRoot say of the admit handlers that judge from state podsrc does not
// read: the resource managers' policies, the node shutdown manager, and
// whether the host has AppArmor enabled (unknown when that cannot be read;
// no AppArmor module is disabled).
func unseenState(k kubeletAdmission, hostRoot string) admission.Unseen {
	u := admission.Unseen{NoKubeletConfig: !k.Known}
	if k.Known {
		u.CPUManagerPolicy, u.MemoryManagerPolicy, u.TopologyManagerPolicy = k.CPUManagerPolicy, k.MemoryManagerPolicy, k.TopologyManagerPolicy
		u.GracefulShutdown = k.ShutdownGracePeriod > 0
	}
	switch raw, err := os.ReadFile(nodeenv.ReadPath(hostRoot, appArmorEnabledPath)); {
	case err == nil:
		enabled := strings.HasPrefix(string(raw), "Y")
		u.AppArmorEnabled = &enabled
	case os.IsNotExist(err):
		enabled := false
		u.AppArmorEnabled = &enabled
	}
	return u
}
