package printers

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestSnapshotItemsArePodsObjects: the items of a watch --snapshot message,
// as -o json prints them, are the objects pods -o json prints: kind, node
// and metadata (.snapshot.items[*].metadata.name).
func TestSnapshotItemsArePodsObjects(t *testing.T) {
	lists := fixturePods()
	m := &v1alpha1.StreamMessage{Type: v1alpha1.MessageSnapshot, Seq: 40, Snapshot: &lists[0]}
	obj, err := messageItem("node-1", m).Object()
	if err != nil {
		t.Fatal(err)
	}
	pods, err := listOf(Pods{Lists: lists}.Items())
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	roundTrip(t, obj["snapshot"].(map[string]any)["items"], &got)
	roundTrip(t, pods.Items, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the snapshot's items\n%v\nare not pods -o json's\n%v", got, want)
	}
	if name := got.([]any)[0].(map[string]any)["metadata"].(map[string]any)["name"]; name != "etcd-node-1" {
		t.Errorf(".snapshot.items[0].metadata.name = %v", name)
	}
}

// roundTrip decodes v's JSON into out.
func roundTrip(t *testing.T, v any, out *any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
