package decoder

import "testing"

// TestNoPriorityWarnings checks that v1.36, whose kubelet checks no static
// pod's priority, warns about none of the pods v1.37 warns about.
func TestNoPriorityWarnings(t *testing.T) {
	for _, fields := range []string{
		`"priorityClassName":"system-node-critical",`,
		`"priority":1000,`,
		`"priority":2000000000,"priorityClassName":"system-node-critical",`,
	} {
		manifest := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"prio"},"spec":{` + fields +
			`"containers":[{"name":"app","image":"busybox"}]}}`
		pod, warnings, err := New().DecodeFile([]byte(manifest), "/etc/kubernetes/manifests/prio.json", "node-1")
		if err != nil || pod == nil || warnings != nil {
			t.Errorf("DecodeFile of a pod with %s = %v, %q, %v; want the pod without warnings", fields, pod, warnings, err)
		}
	}
}
