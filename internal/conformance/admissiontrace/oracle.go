package admissiontrace

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
)

// Kubelet is one minor's own kubelet code, which the recorder runs as the
// oracle: it does not go through pkg/admission, whose logic the traces
// check, but follows HandlePodAdditions with the kubelet's own functions.
type Kubelet struct {
	// Version is the linked kubelet's version.
	Version string
	// SortByCreationTime sorts a notification as HandlePodAdditions does
	// (sort.Sort of sliceutils.PodsByCreationTime).
	SortByCreationTime func([]*v1.Pod)
	// IsMirrorPod is kubetypes.IsMirrorPod; IsPodPhaseTerminal is
	// podutil.IsPodPhaseTerminal.
	IsMirrorPod        func(*v1.Pod) bool
	IsPodPhaseTerminal func(v1.PodPhase) bool
	// Handlers builds the admit handlers cfg names as NewMainKubelet
	// chains them, on the kubelet's callbacks.
	Handlers func(ctx context.Context, cfg admission.Config, k Callbacks) ([]AdmitFunc, error)
}

// Callbacks are what the kubelet hands its admit handlers.
type Callbacks struct {
	// Node is the kubelet's GetCachedNode: an error when the scenario has
	// no node.
	Node func() (*v1.Node, error)
	// ActivePods is the kubelet's GetActivePods (getAllocatedPods from
	// v1.34): the pods of the pod manager that are neither in a terminal
	// phase nor failed by the kubelet, the pod judged included.
	ActivePods func() []*v1.Pod
	// Kill is the kubelet's killPodNow: the pod is failed.
	Kill func(pod *v1.Pod, isEvicted bool, gracePeriodOverride *int64, fn func(*v1.PodStatus)) error
}

// AdmitFunc is one admit handler's Admit, with the attributes the
// kubelet's canAdmitPod gives it.
type AdmitFunc func(pod *v1.Pod, others []*v1.Pod) (admit bool, reason, message string)

// kubeletState is what the oracle keeps of the kubelet: its pod manager
// (pods by UID, in the order first added) and the pods its status manager
// holds as failed (rejected or killed).
type kubeletState struct {
	node   *v1.Node
	order  []types.UID
	pods   map[types.UID]*v1.Pod
	failed map[types.UID]bool
	killed []*v1.Pod
	k      Kubelet
}

func (s *kubeletState) callbacks() Callbacks {
	return Callbacks{
		Node: func() (*v1.Node, error) {
			if s.node == nil {
				return nil, admission.ErrNoNode
			}
			return s.node, nil
		},
		ActivePods: s.active,
		Kill: func(pod *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
			s.failed[pod.UID] = true
			s.killed = append(s.killed, pod)
			return nil
		},
	}
}

func (s *kubeletState) active() []*v1.Pod {
	var out []*v1.Pod
	for _, uid := range s.order {
		p := s.pods[uid]
		if s.k.IsPodPhaseTerminal(p.Status.Phase) || s.failed[uid] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// handleAdditions is HandlePodAdditions up to admission.
func (s *kubeletState) handleAdditions(handlers []AdmitFunc, pods []*v1.Pod) []Result {
	pods = slices.Clone(pods)
	s.k.SortByCreationTime(pods)
	var results []Result
	for _, pod := range pods {
		r := Result{Pod: pod.Namespace + "/" + pod.Name, UID: pod.UID}
		if s.k.IsMirrorPod(pod) {
			r.Skipped = admission.SkippedMirror
			results = append(results, r)
			continue
		}
		if _, ok := s.pods[pod.UID]; !ok {
			s.order = append(s.order, pod.UID)
		}
		s.pods[pod.UID] = pod
		if s.k.IsPodPhaseTerminal(pod.Status.Phase) {
			r.Skipped = admission.SkippedTerminal
			results = append(results, r)
			continue
		}
		others := slices.DeleteFunc(s.active(), func(p *v1.Pod) bool { return p.UID == pod.UID })
		s.killed = nil
		r.Admit = true
		for _, h := range handlers {
			if ok, reason, message := h(pod, others); !ok {
				r.Admit, r.Reason, r.Message = false, reason, message
				s.failed[pod.UID] = true
				break
			}
		}
		for _, p := range s.killed {
			r.Preempted = append(r.Preempted, p.Namespace+"/"+p.Name)
		}
		results = append(results, r)
	}
	return results
}

// runKubelet runs a scenario through the kubelet's code and returns the
// results of each step.
func runKubelet(ctx context.Context, k Kubelet, sc Scenario) ([][]Result, error) {
	s := &kubeletState{node: sc.Node.DeepCopy(), pods: map[types.UID]*v1.Pod{}, failed: map[types.UID]bool{}, k: k}
	handlers, err := k.Handlers(ctx, admission.Config{Handlers: sc.Handlers, AllowedUnsafeSysctls: sc.AllowedUnsafeSysctls}, s.callbacks())
	if err != nil {
		return nil, err
	}
	var out [][]Result
	for _, step := range sc.Steps {
		out = append(out, s.handleAdditions(handlers, step))
	}
	return out, nil
}
