package syncloop

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// TestViewListSorted checks that list and SortSourced give the view's pods
// by namespace, name and source, a pod two sources configure once for each.
func TestViewListSorted(t *testing.T) {
	pod := func(ns, name, uid string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}}
	}
	v := NewView()
	v.Apply(merge.PodUpdate{Op: merge.Add, Source: "file", Pods: []*v1.Pod{pod("b", "x", "1"), pod("a", "z", "2"), pod("a", "y", "3")}}, nil)
	v.Apply(merge.PodUpdate{Op: merge.Add, Source: "api", Pods: []*v1.Pod{pod("b", "x", "1")}}, nil)
	got := v.List()
	SortSourced(got)
	var order []string
	for _, p := range got {
		order = append(order, p.Pod.Namespace+"/"+p.Pod.Name+" "+p.Source)
	}
	want := []string{"a/y file", "a/z file", "b/x api", "b/x file"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("got %v, want %v", order, want)
	}
}

// TestViewManaged checks which pod the kubelet's pod manager holds under a
// runtime pod's UID: the view's pod of the UID, not a mirror pod; and a
// static pod whose mirror pod names another UID as the kubelet's, under
// that UID.
func TestViewManaged(t *testing.T) {
	pod := func(name, uid string, annotations map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, UID: types.UID(uid), Annotations: annotations}}
	}
	etcd := pod("etcd-node-1", "config-uid", nil)
	api := pod("web", "api-uid", nil)
	v := NewView()
	v.Apply(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceFile, Pods: []*v1.Pod{etcd}}, nil)
	v.Apply(merge.PodUpdate{Op: merge.Add, Source: v1alpha1.SourceAPI, Pods: []*v1.Pod{
		api,
		// The kubelet gave the static pod another UID than podsrc.
		pod("etcd-node-1", "mirror-uid", map[string]string{merge.ConfigMirrorAnnotation: "kubelet-uid"}),
		// A mirror pod of a static pod the file source no longer has.
		pod("gone-node-1", "gone-mirror-uid", map[string]string{merge.ConfigMirrorAnnotation: "gone-uid"}),
	}}, nil)
	tests := []struct {
		name, uid, podName string
		want               *v1.Pod
	}{
		{name: "a static pod by its config UID", uid: "config-uid", podName: "etcd-node-1", want: etcd},
		{name: "an API pod", uid: "api-uid", podName: "web", want: api},
		{name: "the kubelet's UID of a static pod, from its mirror", uid: "kubelet-uid", podName: "etcd-node-1", want: etcd},
		{name: "a mirror pod's own UID", uid: "mirror-uid", podName: "etcd-node-1"},
		{name: "a mirror pod without its static pod", uid: "gone-uid", podName: "gone-node-1"},
		{name: "a pod no source has", uid: "orphan-uid", podName: "orphan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := v.Managed(types.UID(tt.uid), "kube-system", tt.podName); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
