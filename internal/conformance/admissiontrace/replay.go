package admissiontrace

import (
	"fmt"
	"slices"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/podsrc/podsrc/internal/conformance"
	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Replay replays every admission trace recorded from the kubelet minor of
// kubeletVersion through an admission.Admitter with the chain newHandlers
// builds for the trace's handlers and allowed unsafe sysctls, under the
// feature gates the trace's kubelet had, on its Node as the kubelet's node
// status shows it (with the features it declares), and compares
// every result with the kubelet's: the pod, its admission, reason and
// message, the pods preempted and their order, and why a pod was skipped.
// It fails when that minor has no trace, so that a module never passes on
// an empty directory.
func Replay(t *testing.T, kubeletVersion string, newHandlers admission.NewAdmitHandler) {
	t.Helper()
	minor, err := kubeletminor.Parse(kubeletVersion)
	if err != nil {
		t.Fatalf("admit handlers: %v", err)
	}
	replayed := 0
	for _, f := range Load(t) {
		m, err := kubeletminor.Of(f.Kubelet)
		if err != nil {
			t.Fatalf("trace %s: %v", f.Base, err)
		}
		if m != minor {
			continue
		}
		t.Run(f.Base, func(t *testing.T) { replayTrace(t, f.Trace, newHandlers) })
		replayed++
	}
	if replayed == 0 {
		t.Fatalf("no admission trace of kubelet %s in %s", minor, conformance.Dir(Sub))
	}
	t.Logf("replayed %d admission traces of kubelet %s with the admit handlers of kubelet %s", replayed, minor, kubeletVersion)
}

func replayTrace(t *testing.T, tr Trace, newHandlers admission.NewAdmitHandler) {
	if tr.NodeFeatures != nil {
		for gate, on := range tr.NodeFeatures.FeatureGates {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, featuregate.Feature(gate), on)
		}
	}
	h, err := newHandlers(t.Context(), admission.Config{AdmitHandlers: tr.Handlers, AllowedUnsafeSysctls: tr.AllowedUnsafeSysctls})
	if err != nil {
		t.Fatalf("building the handlers %q: %v", tr.Handlers, err)
	}
	a := admission.NewAdmitter(h, nil)
	a.SetNode(tr.NodeWithFeatures())
	for i, step := range tr.Steps {
		for _, diff := range Compare(a.Add(step.Pods), step.Results, tr.Handlers) {
			t.Errorf("step %d: %s", i, diff)
		}
	}
}

// Compare lists how the results of one ADD differ from the kubelet's:
// every field of every result, in order. A refusal must also name one of
// the handlers chained.
func Compare(got []admission.PodAdmission, want []Result, handlers []string) []string {
	var diffs []string
	if len(got) != len(want) {
		diffs = append(diffs, fmt.Sprintf("%d results, kubelet %d", len(got), len(want)))
	}
	for i := range min(len(got), len(want)) {
		g, w := FromAdmission(got[i]), want[i]
		if !equal(g, w) {
			diffs = append(diffs, fmt.Sprintf("result %d:\ngot  %+v\nwant %+v", i, g, w))
		}
		if h := got[i].Admission.Handler; !g.Admit && g.Skipped == "" && !slices.Contains(handlers, h) {
			diffs = append(diffs, fmt.Sprintf("result %d: refused by handler %q, which is not one of %q", i, h, handlers))
		}
	}
	return diffs
}

// FromAdmission writes one of pkg/admission's results as a trace does.
func FromAdmission(r admission.PodAdmission) Result {
	out := Result{
		Pod:     r.Pod.Namespace + "/" + r.Pod.Name,
		UID:     r.Pod.UID,
		Admit:   r.Admission.Admitted,
		Reason:  r.Admission.Reason,
		Message: r.Admission.Message,
		Skipped: r.Admission.Skipped,
	}
	for _, p := range r.Admission.Preempts {
		out.Preempted = append(out.Preempted, p.Namespace+"/"+p.Name)
	}
	return out
}

// equal compares two results field by field; a trace leaves out an empty
// list of pods preempted, so none is none either way.
func equal(a, b Result) bool {
	return a.Pod == b.Pod && a.UID == b.UID && a.Admit == b.Admit &&
		a.Reason == b.Reason && a.Message == b.Message && a.Skipped == b.Skipped &&
		slices.Equal(a.Preempted, b.Preempted)
}
