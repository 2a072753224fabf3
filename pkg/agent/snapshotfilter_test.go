package agent

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
)

// TestSnapshotFilters runs the shared snapshot cases against the agent's
// stream, through HTTP: the snapshot that opens a stream holds only the
// pods of the query's pod filter.
func TestSnapshotFilters(t *testing.T) {
	ta := startAgent(t, nil)
	ta.servePodCases(t)
	querytest.RunSnapshots(t, func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.PodInfo {
		m := ta.stream(t, "?"+q.Encode().Encode()).Next(t)
		if m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil || m.Snapshot.NodeName != "node-1" {
			t.Fatalf("the stream opened with %+v, want a snapshot of node-1", m)
		}
		return m.Snapshot.Items
	})
}
