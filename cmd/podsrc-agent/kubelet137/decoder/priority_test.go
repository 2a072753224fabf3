package decoder

import (
	"fmt"
	"slices"
	"testing"
)

// priorityPod is a static pod manifest with the given spec fields added.
func priorityPod(fields string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"prio"},"spec":{` + fields +
		`"containers":[{"name":"app","image":"busybox"}]}}`
}

// TestPriorityWarnings checks v1.37's warning about a static pod whose
// priority and priorityClassName disagree with system-node-critical's: in
// a file and a single pod at a URL, never in a URL pod list, and none for
// the healthy pair or a pod without either.
func TestPriorityWarnings(t *testing.T) {
	const url = "http://127.0.0.1:18080/pods"
	for _, tt := range []struct {
		name   string
		fields string
		want   []string
	}{
		{name: "neither", fields: ``},
		{name: "system-node-critical with its priority", fields: `"priority":2000001000,"priorityClassName":"system-node-critical",`},
		{name: "class without priority", fields: `"priorityClassName":"system-node-critical",`, want: []string{
			`kubelet v1.37 warns: a priorityClassName without a priority: the kubelet ignores the class, and the mirror pod may fail to be created`}},
		{name: "priority without class", fields: `"priority":1000,`, want: []string{
			"kubelet v1.37 warns: priority 1000 without a priorityClassName: the mirror pod may fail to be created unless the default priority class has that priority"}},
		{name: "other class", fields: `"priority":2000001000,"priorityClassName":"system-cluster-critical",`, want: []string{
			`kubelet v1.37 warns: priority 2000001000 with a priorityClassName other than 2000001000 with system-node-critical: evicting the mirror pod may be tried to no effect`}},
		{name: "other priority", fields: `"priority":2000000000,"priorityClassName":"system-node-critical",`, want: []string{
			`kubelet v1.37 warns: priority 2000000000 with a priorityClassName other than 2000001000 with system-node-critical: evicting the mirror pod may be tried to no effect`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := New()
			manifest := priorityPod(tt.fields)
			pod, got, err := d.DecodeFile([]byte(manifest), "/etc/kubernetes/manifests/prio.json", "node-1")
			if err != nil || pod == nil {
				t.Fatalf("DecodeFile = %v, %v; want the pod", pod, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("DecodeFile warnings = %q; want %q", got, tt.want)
			}
			pods, got, err := d.DecodeURL([]byte(manifest), url, "node-1")
			if err != nil || len(pods) != 1 {
				t.Fatalf("DecodeURL of a single pod = %d pods, %v; want the pod", len(pods), err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("DecodeURL of a single pod: warnings = %q; want %q", got, tt.want)
			}
			list := fmt.Sprintf(`{"apiVersion":"v1","kind":"PodList","items":[%s]}`, manifest)
			pods, got, err = d.DecodeURL([]byte(list), url, "node-1")
			if err != nil || len(pods) != 1 {
				t.Fatalf("DecodeURL of a list = %d pods, %v; want the pod", len(pods), err)
			}
			if got != nil {
				t.Errorf("DecodeURL of a list: warnings = %q; want none (the kubelet checks no list item)", got)
			}
		})
	}
}
