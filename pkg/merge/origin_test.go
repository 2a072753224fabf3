package merge

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// TestNotificationsCarryOrigins follows the pods of a file source through
// every kind of notification: each names the origin its source last gave
// the pod, REMOVE included (the source no longer has the pod then), in
// every mode; a source that gives none gets nil Origins.
func TestNotificationsCarryOrigins(t *testing.T) {
	const web, bak = "/etc/kubernetes/manifests/web.yaml", "/etc/kubernetes/manifests/web.yaml.bak"
	fromBak := testPod("web-node-1", "demo", "u-bak", "app:1")
	fromWeb := testPod("web-node-1", "demo", "u-web", "app:1")
	changed := testPod("web-node-1", "demo", "u-web", "app:2")
	set := func(p *v1.Pod, origin string) PodUpdate {
		return PodUpdate{Op: Set, Pods: []*v1.Pod{p}, Origins: []string{origin}}
	}
	// describe lists each notification as OP pod-uid@origin.
	describe := func(us []PodUpdate) []string {
		var out []string
		for _, u := range us {
			for i, p := range u.Pods {
				origin := "<nil>"
				if u.Origins != nil {
					origin = u.Origins[i]
				}
				out = append(out, fmt.Sprintf("%s %s@%s", u.Op, p.UID, origin))
			}
		}
		return out
	}
	tests := []struct {
		mode Mode
		want [][]string // after each step
	}{
		{Incremental, [][]string{
			{"ADD u-bak@" + bak},
			{"REMOVE u-bak@" + bak, "ADD u-web@" + web},
			{"UPDATE u-web@" + web},
		}},
		{SnapshotAndUpdates, [][]string{
			{"SET u-bak@" + bak},
			{"SET u-web@" + web},
			{"UPDATE u-web@" + web},
		}},
		{Snapshot, [][]string{
			{"SET u-bak@" + bak},
			{"SET u-web@" + web},
			{"SET u-web@" + web},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			cfg := New(Options{Mode: tt.mode})
			for i, u := range []PodUpdate{set(fromBak, bak), set(fromWeb, web), set(changed, web)} {
				got := describe(mustMerge(t, cfg, "file", u))
				if fmt.Sprint(got) != fmt.Sprint(tt.want[i]) {
					t.Errorf("step %d: %q, want %q", i+1, got, tt.want[i])
				}
			}
			api := New(Options{Mode: tt.mode})
			for _, u := range mustMerge(t, api, "api", PodUpdate{Op: Set, Pods: []*v1.Pod{fromWeb}}) {
				if u.Origins != nil {
					t.Errorf("%s of a source without origins has Origins %q", u.Op, u.Origins)
				}
			}
		})
	}
}
