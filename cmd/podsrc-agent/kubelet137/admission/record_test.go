package admission

import (
	"flag"
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"k8s.io/kubernetes/pkg/kubelet/util/sliceutils"

	"github.com/podsrc/podsrc/internal/conformance/admissiontrace"
	"github.com/podsrc/podsrc/internal/conformance/evictiontrace"
)

var recordTraces = flag.Bool("record", false, "record the admission traces of this kubelet minor into the trace directory")

// TestRecordAdmissionTraces is the recorder, run with -record: it runs the
// scenarios through kubelet v1.37's own code, not through podsrc's
// pkg/admission, and writes the traces that do not exist yet.
func TestRecordAdmissionTraces(t *testing.T) {
	if !*recordTraces {
		t.Skip("records traces only with -record")
	}
	admissiontrace.Record(t, admissiontrace.Kubelet{
		Version:            KubeletVersion(),
		SortByCreationTime: func(pods []*v1.Pod) { sort.Sort(sliceutils.PodsByCreationTime(pods)) },
		IsMirrorPod:        kubetypes.IsMirrorPod,
		IsPodPhaseTerminal: podutil.IsPodPhaseTerminal,
		Handlers:           evictiontrace.WithEviction(kubeletHandlers, startEvictionManager),
		DeclareFeatures:    declareFeatures,
	})
}
