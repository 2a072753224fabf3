package decoder

import (
	"strings"
	"testing"
)

// trustBundlePod is a pod with a ClusterTrustBundle projected volume, an API
// reference a static pod may not make.
const trustBundlePod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ctb"},"spec":{
"containers":[{"name":"app","image":"busybox","volumeMounts":[{"name":"ca","mountPath":"/ca"}]}],
"volumes":[{"name":"ca","projected":{"sources":[{"clusterTrustBundle":{"name":"bundle","path":"ca.pem"}}]}}]}}`

// TestAPIReferencesAlwaysBanned checks that v1.37 bans every API reference
// with no gate to turn the ban off: in a file, a single pod at a URL and
// each item of a URL pod list.
func TestAPIReferencesAlwaysBanned(t *testing.T) {
	const url = "http://127.0.0.1:18080/pods"
	const want = "static pods may not reference clustertrustbundles"
	d := New()
	if pod, _, err := d.DecodeFile([]byte(trustBundlePod), "/etc/kubernetes/manifests/ctb.json", "node-1"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("DecodeFile = %v, %v; want %q", pod, err, want)
	}
	if pods, _, err := d.DecodeURL([]byte(trustBundlePod), url, "node-1"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("DecodeURL of a single pod = %d pods, %v; want %q", len(pods), err, want)
	}
	list := `{"apiVersion":"v1","kind":"PodList","items":[` + trustBundlePod + `]}`
	if pods, _, err := d.DecodeURL([]byte(list), url, "node-1"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("DecodeURL of a list = %d pods, %v; want %q", len(pods), err, want)
	}
}
