package syncloop

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// TestKubeletUIDs checks where a static pod's kubelet UID is read from: its
// mirror pod first, else a runtime pod of its name, and that a UID the
// kubelet gave otherwise than podsrc shows as such.
func TestKubeletUIDs(t *testing.T) {
	static := v1alpha1.PodInfo{Namespace: "kube-system", Name: "etcd-n1", UID: "podsrc-uid", Source: v1alpha1.SourceFile, Static: true}
	mirror := func(uid string) Sourced {
		return Sourced{Source: v1alpha1.SourceAPI, Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "kube-system", Name: "etcd-n1", UID: "mirror-object-uid",
			Annotations: map[string]string{merge.ConfigMirrorAnnotation: uid},
		}}}
	}
	runtimePod := func(uid types.UID) map[types.UID]pleg.RuntimePod {
		return map[types.UID]pleg.RuntimePod{uid: {ID: uid, Namespace: "kube-system", Name: "etcd-n1"}}
	}
	tests := []struct {
		name       string
		configured []Sourced
		rt         map[types.UID]pleg.RuntimePod
		uid, from  string
	}{
		{name: "nothing on the node reveals it"},
		{name: "the mirror pod agrees", configured: []Sourced{mirror("podsrc-uid")}, rt: runtimePod("other"), uid: "podsrc-uid", from: "mirror"},
		{name: "the mirror pod disagrees", configured: []Sourced{mirror("md5-uid")}, uid: "md5-uid", from: "mirror"},
		{name: "no mirror pod, the runtime runs podsrc's UID", rt: runtimePod("podsrc-uid"), uid: "podsrc-uid", from: "sandbox"},
		{name: "no mirror pod, the runtime runs another UID", rt: runtimePod("md5-uid"), uid: "md5-uid", from: "sandbox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := static
			NewKubeletUIDs(tt.configured, tt.rt).Set(&p)
			if p.KubeletUID != tt.uid || p.KubeletUIDFrom != tt.from {
				t.Fatalf("kubelet UID %q from %q, want %q from %q", p.KubeletUID, p.KubeletUIDFrom, tt.uid, tt.from)
			}
		})
	}
	// Pods that are not static get none.
	p := v1alpha1.PodInfo{Namespace: "kube-system", Name: "etcd-n1", UID: "x", Source: v1alpha1.SourceAPI}
	NewKubeletUIDs([]Sourced{mirror("md5-uid")}, runtimePod("md5-uid")).Set(&p)
	if p.KubeletUID != "" {
		t.Fatalf("a non-static pod got kubelet UID %q", p.KubeletUID)
	}
}
