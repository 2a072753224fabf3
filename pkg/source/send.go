package source

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/merge"
)

// SendSet delivers a SET of pods, with their fingerprints, their origins
// and their decoder's warnings (each nil, or one per pod; see
// merge.PodUpdate), on updates. The pods are immutable from then on (see
// merge.PodUpdate): the merge keeps and shares them; the slices stay the
// caller's. It returns false,
// having sent nothing, when ctx ends first. pods must be non-nil for an
// empty SET.
func SendSet(ctx context.Context, updates chan<- merge.PodUpdate, source string, pods []*v1.Pod, fingerprints, origins []string, warnings [][]string) bool {
	select {
	case updates <- merge.PodUpdate{Op: merge.Set, Source: source, Pods: pods, Fingerprints: fingerprints, Origins: origins, Warnings: warnings}:
		return true
	case <-ctx.Done():
		return false
	}
}
