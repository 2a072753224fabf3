package agent

import (
	"context"

	"github.com/podsrc/podsrc/pkg/source"
)

// PodSource is a pod source as the agent runs and reports it.
type PodSource interface {
	// Run sends the source's pods to the merge until ctx ends.
	Run(ctx context.Context)
	// Status returns a copy of the source's state.
	Status() source.Status
}
