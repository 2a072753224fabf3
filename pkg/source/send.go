package source

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/merge"
)

// sendSet delivers a SET of pods (deep-copied, so that the receiver may
// change them) on updates. It returns false, having sent nothing, when ctx
// ends first. pods must be non-nil for an empty SET.
func sendSet(ctx context.Context, updates chan<- merge.PodUpdate, source string, pods []*v1.Pod) bool {
	copied := make([]*v1.Pod, 0, len(pods))
	for _, p := range pods {
		copied = append(copied, p.DeepCopy())
	}
	select {
	case updates <- merge.PodUpdate{Op: merge.Set, Source: source, Pods: copied}:
		return true
	case <-ctx.Done():
		return false
	}
}
