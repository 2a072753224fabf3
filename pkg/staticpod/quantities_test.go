package staticpod

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// countingKubelet decodes every pod to an empty one and counts the calls.
type countingKubelet struct{ calls *int }

func (k countingKubelet) DecodePod([]byte, Location) (bool, *v1.Pod, []string, error) {
	*k.calls++
	return true, &v1.Pod{}, nil, nil
}

func (k countingKubelet) DecodePodList([]byte, Location) (bool, []*v1.Pod, error) {
	*k.calls++
	return true, []*v1.Pod{{}}, nil
}

func (countingKubelet) KubeletVersion() string { return "v1.36.3" }

// TestHugeQuantitiesFailTheirFileAlone: a quantity whose exponent
// apimachinery would expand forever fails its manifest or URL body with an
// error that names where, before the kubelet's code sees it; the same
// string where no quantity is, and quantities of ordinary exponents, are
// the kubelet's to decode.
func TestHugeQuantitiesFailTheirFileAlone(t *testing.T) {
	pod := func(field string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: i\n" + field
	}
	tests := []struct {
		name, manifest, wantErr string
	}{
		{"a cpu request", pod("    resources: {requests: {cpu: \"1e200000000\"}}\n"), "quantity at spec.containers[0].resources.requests has a decimal exponent beyond 1000000"},
		{"a memory limit as a number", pod("    resources: {limits: {memory: 1E+200000000}}\n"), "quantity at spec.containers[0].resources.limits"},
		{"a negative exponent", pod("    resources: {requests: {cpu: \"5e-0200000000\"}}\n"), "resources.requests has a decimal exponent"},
		{"an emptyDir's size limit", pod("  volumes: [{name: v, emptyDir: {sizeLimit: 1e99999999}}]\n"), "quantity at spec.volumes[0].emptyDir.sizeLimit"},
		{"the pod's overhead", pod("  overhead: {cpu: 1e99999999}\n"), "quantity at spec.overhead"},
		{"a JSON list's item", `{"kind":"PodList","apiVersion":"v1","items":[{"spec":{"containers":[{"resources":{"requests":{"cpu":"1e200000000"}}}]}}]}`, "quantity at items[0].spec.containers[0].resources.requests"},
		{"an unknown field's name is left out", pod("  \"s3cr3t key!\": {overhead: {cpu: 1e99999999}}\n"), "quantity at spec.*.overhead has"},
		{"the first in the keys' order", pod("    resources: {requests: {cpu: \"1e200000000\"}}\n  overhead: {cpu: 1e99999999}\n  volumes: [{name: v, emptyDir: {sizeLimit: 1e99999999}}]\n"), "quantity at spec.containers[0].resources.requests"},
		{"an env value", pod("    env: [{name: N, value: \"1e200000000\"}]\n"), ""},
		{"an ordinary exponent", pod("    resources: {requests: {cpu: \"1e3\", memory: 1e1000000}}\n"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			d := NewDecoder(countingKubelet{&calls})
			_, _, fileErr := d.DecodeFile([]byte(tt.manifest), "/etc/kubernetes/manifests/p.yaml", "node-1")
			_, _, urlErr := d.DecodeURL([]byte(tt.manifest), "http://h/pods", "node-1")
			if tt.wantErr == "" {
				if fileErr != nil || urlErr != nil || calls != 2 {
					t.Errorf("errors %v and %v, %d calls of the kubelet's code; want none and 2", fileErr, urlErr, calls)
				}
				return
			}
			if calls != 0 {
				t.Errorf("the kubelet's code was called %d times", calls)
			}
			for where, err := range map[string]error{"/etc/kubernetes/manifests/p.yaml: ": fileErr, "http://h/pods: ": urlErr} {
				if err == nil || !strings.HasPrefix(err.Error(), where) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one starting %q with %q", err, where, tt.wantErr)
				}
			}
		})
	}
}
