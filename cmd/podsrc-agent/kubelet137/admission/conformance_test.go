package admission

import (
	"testing"

	"github.com/podsrc/podsrc/internal/conformance/admissiontrace"
)

// TestAdmissionConformance replays the admission traces of kubelet v1.37.
func TestAdmissionConformance(t *testing.T) {
	admissiontrace.Replay(t, KubeletVersion(), New)
}
