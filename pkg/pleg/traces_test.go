package pleg_test

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// The PLEG traces are replayed from this external test package because
// pkg/kubeletsemantics, which chooses each trace's semantics, imports pleg.

func TestConformanceTraces(t *testing.T) {
	pleg.ReplayConformanceTraces(t, kubeletsemantics.PLEGOf)
}
