package decoder

import (
	"testing"

	"github.com/podsrc/podsrc/internal/conformance/staticpodtrace"
)

// TestStaticPodConformance replays the staticpod traces of kubelet v1.37.
func TestStaticPodConformance(t *testing.T) {
	staticpodtrace.Replay(t, New())
}
