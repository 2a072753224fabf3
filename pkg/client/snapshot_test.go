package client

import (
	"context"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestSnapshotFilter runs the shared snapshot cases through Events: the
// client's snapshot holds the pods the query keeps.
func TestSnapshotFilter(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.Pods.Items = querytest.Pods()
	a := startAgent(t, fa)
	querytest.RunSnapshots(t, func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.PodInfo {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := a.Events(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		m, err := s.Next()
		if err != nil || m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil {
			t.Fatalf("the stream opened with %+v, %v; want a snapshot", m, err)
		}
		return m.Snapshot.Items
	})
}
