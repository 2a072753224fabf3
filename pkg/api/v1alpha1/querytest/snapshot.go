package querytest

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// SnapshotCase is an event query with a snapshot and the pods of Pods its
// snapshot keeps, each as namespace/name, in order.
type SnapshotCase struct {
	Name  string
	Query v1alpha1.EventQuery
	Want  []string
}

// SnapshotCases are the snapshot's cases: every pod case as the event
// query of the same filter, then the filters that concern events only or
// that a pod query cannot take, which leave the snapshot whole.
func SnapshotCases() []SnapshotCase {
	var out []SnapshotCase
	for _, c := range PodCases {
		q := v1alpha1.EventQuery{Snapshot: true, Namespaces: c.Query.Namespaces, Pods: c.Query.Pods, Selector: c.Query.Selector}
		if c.Query.Source != "" {
			q.Sources = []string{c.Query.Source}
		}
		out = append(out, SnapshotCase{Name: c.Name, Query: q, Want: c.Want})
	}
	every := podNames(0, 1, 2, 3, 4, 5, 6)
	return append(out,
		SnapshotCase{Name: "event filters leave the pods whole", Want: every, Query: v1alpha1.EventQuery{Snapshot: true,
			Kinds: []string{v1alpha1.EventKindPLEG}, Ops: []string{v1alpha1.OpAdd}, Types: []string{"ContainerDied"}, Containers: []string{"nginx"}}},
		SnapshotCase{Name: "event filters with a pod filter", Want: podNames(1, 2), Query: v1alpha1.EventQuery{Snapshot: true,
			Types: []string{"ContainerDied"}, Containers: []string{"istio-*"}, Selector: "app=web"}},
		SnapshotCase{Name: "two sources leave the sources whole", Want: podNames(0, 1, 2), Query: v1alpha1.EventQuery{Snapshot: true,
			Sources: []string{v1alpha1.SourceFile, v1alpha1.SourceAPI}, Namespaces: []string{"default"}, Selector: "app"}},
		SnapshotCase{Name: "an excluded source leaves the sources whole", Want: podNames(3, 4), Query: v1alpha1.EventQuery{Snapshot: true,
			Sources: []string{"!" + v1alpha1.SourceFile}, Pods: []string{"kube-system/*"}}},
	)
}

// RunSnapshots runs every snapshot case: snapshot gets the case's query
// and returns the pods of the snapshot that opens its stream.
func RunSnapshots(t *testing.T, snapshot func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.PodInfo) {
	t.Helper()
	for _, c := range SnapshotCases() {
		t.Run(c.Name, func(t *testing.T) {
			checkKept(t, c.Query.Encode().Encode(), snapshot(t, c.Query), c.Want)
		})
	}
}
