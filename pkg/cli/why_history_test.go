package cli

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestWhyReadsOnlyThePodsHistory gives the agent a history of other pods'
// events far past --max-bytes: why of one pod asks the agent for that
// pod's events alone, which fit, and --all reads the whole history and
// says that it went past the budget.
func TestWhyReadsOnlyThePodsHistory(t *testing.T) {
	fa := whyFakeAgent()
	fa.Capacity = 0
	noise := strings.Repeat("x", 4<<10)
	for i := range 1000 {
		fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodUID: "web-uid", PodName: "web",
			Namespace: "default", ContainerName: "app", Data: noise, Time: metav1.NewMicroTime(whyNow.Add(-time.Duration(i) * time.Millisecond))})
	}
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)

	out, errOut, status := runWhy(t, whyCluster(), "why", whyNode, "broken", "-o", "wide", "--max-bytes=1Mi", "--agent-url", srv.URL)
	if status != ExitFailing {
		t.Fatalf("exit status %d, want %d; stderr %s", status, ExitFailing, errOut)
	}
	// The crash cadence comes from the pod's ContainerDied events.
	if !strings.Contains(out, "died 3 times") || strings.Contains(out+errOut, "--max-bytes") {
		t.Errorf("why did not read the pod's history within the budget:\n%s\nstderr: %s", out, errOut)
	}
	for _, q := range fa.EventQueries() {
		if q.Get("since") == "0" && !equalSets(q["pod"], []string{"kube-system/broken-node-1", "broken-uid"}) {
			t.Errorf("why read the history with filter pod=%q, want the pod's namespace/name and UID", q["pod"])
		}
	}

	out, errOut, _ = runWhy(t, whyCluster(), "why", whyNode, "--all", "-o", "yaml", "--max-bytes=1Mi", "--agent-url", srv.URL)
	if !strings.Contains(out+errOut, "--max-bytes") {
		t.Errorf("why --all read a history past --max-bytes without saying so:\n%s\nstderr %s", out, errOut)
	}
}

// equalSets reports whether a and b hold the same strings.
func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s]--; seen[s] < 0 {
			return false
		}
	}
	return true
}
