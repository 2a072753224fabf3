package merge_test

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
	"github.com/podsrc/podsrc/pkg/merge"
)

// The merge traces are replayed from this external test package because
// pkg/kubeletsemantics, which chooses each trace's semantics, imports merge.

func TestConformanceTraces(t *testing.T) {
	merge.ReplayConformanceTraces(t, kubeletsemantics.MergeOf)
}

func TestFingerprintsNeverChangeTheOutput(t *testing.T) {
	merge.CheckFingerprintsNeverChangeTheOutput(t, kubeletsemantics.MergeOf)
}
