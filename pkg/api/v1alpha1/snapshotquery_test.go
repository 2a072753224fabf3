package v1alpha1_test

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
)

// TestEventQueryPodQuery runs the shared snapshot cases against the pod
// filter of each event query, as the agent parses it: what a snapshot
// keeps.
func TestEventQueryPodQuery(t *testing.T) {
	querytest.RunSnapshots(t, func(t *testing.T, q v1alpha1.EventQuery) []v1alpha1.PodInfo {
		parsed, err := v1alpha1.ParseEventQuery(q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		pods := parsed.PodQuery()
		var out []v1alpha1.PodInfo
		for _, p := range querytest.Pods() {
			if pods.Match(p) {
				out = append(out, p)
			}
		}
		return out
	})
}
