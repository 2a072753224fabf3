package why

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Facts are what a report is made from, gathered before the analysis.
type Facts struct {
	// Node is the node's name.
	Node string
	// Target is what was asked about, Subject what it names on the node.
	Target  Target
	Subject Subject
	// Now is the time of the report.
	Now time.Time

	// The agent's answers: its sources, its pods (configured and the
	// runtime's own), its PLEG, the subject's pod with its projected spec
	// (a nil Value when the subject is not configured) and the events it
	// still holds.
	Sources *v1alpha1.SourceList
	Pods    []v1alpha1.PodInfo
	PLEG    *v1alpha1.PLEGStatus
	Detail  Lookup[*v1alpha1.PodInfo]
	History Lookup[[]v1alpha1.Event]

	// The API server's answers, asked with the user's credentials: the
	// pod of the subject's namespace and name (a static pod's mirror), its
	// namespace, the node, and the Events about the pod and about the node.
	APIPod     Lookup[*corev1.Pod]
	Namespace  Lookup[*corev1.Namespace]
	NodeObject Lookup[*corev1.Node]
	PodEvents  Lookup[[]corev1.Event]
	NodeEvents Lookup[[]corev1.Event]
}

// Lookup is the outcome of asking for a fact: its value, or the error
// (an API server's NotFound, Forbidden, ...) that says why there is none.
// A Lookup that was never made has neither, and Skipped says why.
type Lookup[T any] struct {
	Value   T
	Err     error
	Skipped string
}

// Known reports whether the fact was had.
func (l Lookup[T]) Known() bool { return l.Err == nil && l.Skipped == "" }

// Why says why the fact is not known.
func (l Lookup[T]) Why() string {
	if l.Err != nil {
		return l.Err.Error()
	}
	return l.Skipped
}
