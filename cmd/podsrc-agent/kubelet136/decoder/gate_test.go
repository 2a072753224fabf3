package decoder

import (
	"errors"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// trustBundlePod is a pod with a ClusterTrustBundle projected volume, an API
// reference a static pod may not make.
const trustBundlePod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ctb"},"spec":{
"containers":[{"name":"app","image":"busybox","volumeMounts":[{"name":"ca","mountPath":"/ca"}]}],
"volumes":[{"name":"ca","projected":{"sources":[{"clusterTrustBundle":{"name":"bundle","path":"ca.pem"}}]}}]}}`

// TestPreventStaticPodAPIReferencesGate checks both sides of the gate the
// decoder reads from the process-wide feature gates: on (the default), every
// API reference is rejected, in a file and in each item of a URL pod list;
// off, only a single pod meets the older ClusterTrustBundle check and a list
// item passes.
func TestPreventStaticPodAPIReferencesGate(t *testing.T) {
	list := `{"apiVersion":"v1","kind":"PodList","items":[` + trustBundlePod + `]}`
	const url = "http://127.0.0.1:18080/pods"
	tests := []struct {
		name           string
		gate           bool
		singleRejected func(error) bool
		listPass       bool
	}{
		{
			name: "gate on",
			gate: true,
			singleRejected: func(err error) bool {
				return strings.Contains(err.Error(), "static pods may not reference clustertrustbundles")
			},
		},
		{
			name:           "gate off",
			gate:           false,
			singleRejected: func(err error) bool { return errors.Is(err, internalpod.ErrClusterTrustBundle) },
			listPass:       true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.PreventStaticPodAPIReferences, tt.gate)
			d := New()
			if pod, _, err := d.DecodeFile([]byte(trustBundlePod), "/etc/kubernetes/manifests/ctb.json", "node-1"); err == nil || !tt.singleRejected(err) {
				t.Errorf("DecodeFile = %v, %v; want the gate's rejection", pod, err)
			}
			if _, _, err := d.DecodeURL([]byte(trustBundlePod), url, "node-1"); err == nil || !tt.singleRejected(err) {
				t.Errorf("DecodeURL of a single pod: %v; want the gate's rejection", err)
			}
			pods, _, err := d.DecodeURL([]byte(list), url, "node-1")
			switch {
			case tt.listPass && (err != nil || len(pods) != 1):
				t.Errorf("DecodeURL of a list = %d pods, %v; want the pod", len(pods), err)
			case !tt.listPass && (err == nil || !strings.Contains(err.Error(), "static pods may not reference clustertrustbundles")):
				t.Errorf("DecodeURL of a list = %d pods, %v; want the gate's rejection", len(pods), err)
			}
		})
	}
}
