package syncloop

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// TestConfigEventOrigins: a config event names each static pod's origin as
// the merge carried it, a URL's credentials masked even if a source let
// them through.
func TestConfigEventOrigins(t *testing.T) {
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-node-1", Namespace: "demo", UID: "u1"}}
	db := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-node-1", Namespace: "demo", UID: "u2"}}
	for _, tc := range []struct {
		name    string
		origins []string
		want    []string
	}{
		{"none", nil, []string{"", ""}},
		{"paths", []string{"/etc/kubernetes/manifests/web.yaml.bak", "/etc/kubernetes/manifests/db.yaml"},
			[]string{"/etc/kubernetes/manifests/web.yaml.bak", "/etc/kubernetes/manifests/db.yaml"}},
		{"a URL with credentials", []string{"https://user:pw@config.example/pods?token=s3cret", "https://config.example/pods"},
			[]string{"https://xxxxx@config.example/pods?token=xxxxx", "https://config.example/pods"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ConfigEvent(merge.PodUpdate{Op: merge.Remove, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{web, db}, Origins: tc.origins})
			var got []string
			for _, p := range e.Pods {
				got = append(got, p.Origin)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("origins %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConfigEventWarnings: a config event gives each pod the warnings the
// merge carried for it, and none to a pod without.
func TestConfigEventWarnings(t *testing.T) {
	web := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-node-1", Namespace: "demo", UID: "u1"}}
	db := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-node-1", Namespace: "demo", UID: "u2"}}
	const w = "kubelet v1.37 warns: priority 1000 without a priorityClassName"
	e := ConfigEvent(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{web, db}, Warnings: [][]string{{w}, nil}})
	if !slices.Equal(e.Pods[0].Warnings, []string{w}) || e.Pods[1].Warnings != nil {
		t.Errorf("warnings %q and %q, want %q and none", e.Pods[0].Warnings, e.Pods[1].Warnings, w)
	}
}
