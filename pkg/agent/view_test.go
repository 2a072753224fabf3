package agent

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/merge"
)

// TestViewListSorted checks that list and sortSourced give the view's pods
// by namespace, name and source, a pod two sources configure once for each.
func TestViewListSorted(t *testing.T) {
	pod := func(ns, name, uid string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}}
	}
	v := newView()
	v.apply(merge.PodUpdate{Op: merge.Add, Source: "file", Pods: []*v1.Pod{pod("b", "x", "1"), pod("a", "z", "2"), pod("a", "y", "3")}})
	v.apply(merge.PodUpdate{Op: merge.Add, Source: "api", Pods: []*v1.Pod{pod("b", "x", "1")}})
	got := v.list()
	sortSourced(got)
	var order []string
	for _, p := range got {
		order = append(order, p.pod.Namespace+"/"+p.pod.Name+" "+p.source)
	}
	want := []string{"a/y file", "a/z file", "b/x api", "b/x file"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("got %v, want %v", order, want)
	}
}
