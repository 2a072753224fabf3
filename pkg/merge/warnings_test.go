package merge

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestNotificationsCarryWarnings: each notification about a pod carries
// the warnings its source last gave it (REMOVE included), and none once
// the source gives none; a notification without any warning has nil
// Warnings.
func TestNotificationsCarryWarnings(t *testing.T) {
	warned := testPod("web-node-1", "demo", "u-web", "app:1")
	fixed := testPod("web-node-1", "demo", "u-web", "app:2")
	other := testPod("web-node-1", "demo", "u-other", "app:1")
	set := func(p *v1.Pod, warnings ...string) PodUpdate {
		u := PodUpdate{Op: Set, Pods: []*v1.Pod{p}}
		if warnings != nil {
			u.Warnings = [][]string{warnings}
		}
		return u
	}
	// describe lists each notification as OP pod-uid warnings.
	describe := func(us []PodUpdate) []string {
		var out []string
		for _, u := range us {
			for i, p := range u.Pods {
				w := "<nil>"
				if u.Warnings != nil {
					w = fmt.Sprint(u.Warnings[i])
				}
				out = append(out, fmt.Sprintf("%s %s %s", u.Op, p.UID, w))
			}
		}
		return out
	}
	steps := []struct {
		update PodUpdate
		want   []string
	}{
		{set(warned, "priority"), []string{"ADD u-web [priority]"}},
		{set(fixed), []string{"UPDATE u-web <nil>"}},
		{set(warned, "priority", "other"), []string{"UPDATE u-web [priority other]"}},
		{set(other), []string{"REMOVE u-web [priority other]", "ADD u-other <nil>"}},
	}
	cfg := New(Options{Mode: Incremental})
	for i, s := range steps {
		got := describe(mustMerge(t, cfg, "file", s.update))
		if fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Errorf("step %d: %q, want %q", i+1, got, s.want)
		}
	}
}
