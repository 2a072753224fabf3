package admission

import (
	"sort"

	v1 "k8s.io/api/core/v1"
)

// byCreationTime orders pods as the kubelet's HandlePodAdditions does:
// it sorts the notification with sort.Sort on the creation timestamp, so
// the same comparison through the same sort gives the same order, ties
// included.
type byCreationTime []*v1.Pod

func (s byCreationTime) Len() int      { return len(s) }
func (s byCreationTime) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s byCreationTime) Less(i, j int) bool {
	return s[i].CreationTimestamp.Before(&s[j].CreationTimestamp)
}

// inAdmissionOrder returns a copy of one notification's pods in the order
// the kubelet takes them.
func inAdmissionOrder(pods []*v1.Pod) []*v1.Pod {
	ordered := make([]*v1.Pod, len(pods))
	copy(ordered, pods)
	sort.Sort(byCreationTime(ordered))
	return ordered
}
