package admissiontrace

import (
	"context"
	"fmt"
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
	// Handlers builds the minor's admit handlers by name, as
	// NewMainKubelet builds them, on the kubelet's callbacks: the node (an
	// error when the scenario has none), its active pods (GetActivePods,
	// getAllocatedPods from v1.34: the pods of the pod manager neither in
	// a terminal phase nor failed by the kubelet, the pod judged included)
	// and killPodNow (the pod is failed).
	Handlers func(ctx context.Context, allowedUnsafeSysctls []string, k admission.Callbacks) (map[string]admission.AdmitFunc, error)
	// DeclareFeatures is what the kubelet declares as its node's features
	// (nodedeclaredfeatures.DefaultFramework.DiscoverNodeFeatures on the
	// process-wide feature gates, the runtime's features by their CRI names
	// and the kubelet's version), for a minor that chains the declared
	// features handler; nil for the others.
	DeclareFeatures func(runtimeFeatures map[string]bool, version string) ([]string, error)
}

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

func (s *kubeletState) callbacks() admission.Callbacks {
	return admission.Callbacks{
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
func (s *kubeletState) handleAdditions(handlers []admission.AdmitFunc, pods []*v1.Pod) []Result {
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
			if ok, reason, message := h(admission.AdmitAttributes{Node: s.node, Pod: pod, OtherPods: others}); !ok {
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
	s := &kubeletState{node: Trace{Node: sc.Node, NodeFeatures: sc.NodeFeatures}.NodeWithFeatures().DeepCopy(), pods: map[types.UID]*v1.Pod{}, failed: map[types.UID]bool{}, k: k}
	funcs, err := k.Handlers(ctx, sc.AllowedUnsafeSysctls, s.callbacks())
	if err != nil {
		return nil, err
	}
	var handlers []admission.AdmitFunc
	for _, name := range sc.Handlers {
		j, ok := funcs[name]
		if !ok {
			return nil, fmt.Errorf("kubelet %s has no admit handler %q", k.Version, name)
		}
		handlers = append(handlers, j)
	}
	var out [][]Result
	for _, step := range sc.Steps {
		out = append(out, s.handleAdditions(handlers, step))
	}
	return out, nil
}
