package printers

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestInputRows shows what an agent took in: its settings, a source's
// update (a row per pod, a nil pod of a hostile agent left out), and the
// Node.
func TestInputRows(t *testing.T) {
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, UID: "uid-" + types.UID(name)}}
	}
	tests := []struct {
		name  string
		input *v1alpha1.Input
		want  []watchRow
	}{
		{name: "settings", input: &v1alpha1.Input{Settings: &v1alpha1.InputSettings{Sources: []string{"api", "file"}, Mode: "incremental", Admission: &v1alpha1.AdmissionSettings{}}},
			want: []watchRow{{Op: "SETTINGS", Detail: "sources api,file, mode incremental, admission judged"}}},
		{name: "an update", input: &v1alpha1.Input{Update: &v1alpha1.InputUpdate{Source: "file", Op: "SET", Pods: []*v1.Pod{pod("etcd"), nil, pod("kube-apiserver")}}},
			want: []watchRow{
				{Op: "SET", Source: "file", Pod: "kube-system/etcd", UID: "uid-etcd", Detail: "pod 1 of 3"},
				{Op: "SET", Source: "file", Pod: "kube-system/kube-apiserver", UID: "uid-kube-apiserver", Detail: "pod 3 of 3"},
			}},
		{name: "an empty SET", input: &v1alpha1.Input{Update: &v1alpha1.InputUpdate{Source: "api", Op: "SET"}},
			want: []watchRow{{Op: "SET", Source: "api", Detail: "no pods"}}},
		{name: "the Node", input: &v1alpha1.Input{Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "uid-node"}}},
			want: []watchRow{{Op: "NODE", Pod: "node-1", UID: "uid-node", Detail: "the Node the admit handlers are given"}}},
		{name: "the Node deleted", input: &v1alpha1.Input{NodeGone: true}, want: []watchRow{{Op: "NODE", Detail: "the Node was deleted"}}},
		{name: "a relist", input: &v1alpha1.Input{Relist: &v1alpha1.RelistInput{Sandboxes: make([]*runtimeapi.PodSandbox, 2), Containers: make([]*runtimeapi.Container, 3)}},
			want: []watchRow{{Op: "RELIST", Detail: "the runtime listed 2 sandboxes and 3 containers"}}},
		{name: "a failed inspection", input: &v1alpha1.Input{Inspection: &v1alpha1.InspectionInput{ContainerID: "0123456789abcdef0123", Error: "deadline exceeded"}},
			want: []watchRow{{Op: "INSPECT", Detail: "inspected container 0123456789abc: deadline exceeded"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 7, Kind: v1alpha1.EventKindInput, Input: tt.input}}
			rows := watchRows("node-1", m, "03:15:00", false)
			if len(rows) != len(tt.want) {
				t.Fatalf("%d rows %+v, want %d", len(rows), rows, len(tt.want))
			}
			for i, r := range rows {
				w := tt.want[i]
				if r.Kind != v1alpha1.EventKindInput || r.Seq != "7" || r.Op != w.Op || r.Source != w.Source || r.Pod != w.Pod || r.UID != w.UID || r.Detail != w.Detail {
					t.Errorf("row %d: %+v, want %+v", i, r, w)
				}
			}
		})
	}
}
