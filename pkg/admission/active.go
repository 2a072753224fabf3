package admission

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// activeSet holds the kubelet's active pods, admitted and neither terminal
// nor preempted nor removed since, in the order they were admitted, with
// an index by UID so that a pod is found without a scan.
type activeSet struct {
	pods  []*v1.Pod
	index map[types.UID]int
}

func newActiveSet() activeSet {
	return activeSet{index: map[types.UID]int{}}
}

// add appends an admitted pod.
func (s *activeSet) add(pod *v1.Pod) {
	if i, ok := s.index[pod.UID]; ok {
		s.pods[i] = pod
		return
	}
	s.index[pod.UID] = len(s.pods)
	s.pods = append(s.pods, pod)
}

// replace puts the latest version of an active pod in place of the one
// held; a pod that is not active stays so.
func (s *activeSet) replace(pod *v1.Pod) {
	if i, ok := s.index[pod.UID]; ok {
		s.pods[i] = pod
	}
}

// remove drops a pod, keeping the others in their order.
func (s *activeSet) remove(uid types.UID) {
	i, ok := s.index[uid]
	if !ok {
		return
	}
	delete(s.index, uid)
	s.pods = slices.Delete(s.pods, i, i+1)
	for j := i; j < len(s.pods); j++ {
		s.index[s.pods[j].UID] = j
	}
}

// others returns the active pods other than the pod of uid: the held
// slice itself when that pod is not active, which is the usual case.
func (s *activeSet) others(uid types.UID) []*v1.Pod {
	i, ok := s.index[uid]
	if !ok {
		return s.pods[:len(s.pods):len(s.pods)]
	}
	return slices.Delete(slices.Clone(s.pods), i, i+1)
}
