package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestWriteWithItemsIsTheWholeEncoding writes pod lists and snapshot
// messages item by item and requires exactly the bytes json.Encoder writes
// for the whole document, and writes no larger than the buffer.
func TestWriteWithItemsIsTheWholeEncoding(t *testing.T) {
	// The node name holds what the splice looks for, escaped.
	node := `node-1 "items":null <&>`
	for _, n := range []int{0, 1, 3, 2000} {
		items := make([]v1alpha1.PodInfo, n)
		for i := range items {
			items[i] = v1alpha1.PodInfo{Name: fmt.Sprintf("web-%d", i), Namespace: "default", UID: types.UID(fmt.Sprint(i)), Source: v1alpha1.SourceAPI, FirstSeen: "<&>"}
		}
		each := func(yield func(v1alpha1.PodInfo) error) error {
			for _, it := range items {
				if err := yield(it); err != nil {
					return err
				}
			}
			return nil
		}
		head := v1alpha1.PodList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: node}
		full := head
		full.Items = items
		if full.Items == nil {
			full.Items = []v1alpha1.PodInfo{}
		}
		msg := func(l *v1alpha1.PodList) v1alpha1.StreamMessage {
			return v1alpha1.StreamMessage{Type: v1alpha1.MessageSnapshot, Epoch: "e", Seq: 7, Snapshot: l, Time: metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC))}
		}
		tests := []struct {
			name   string
			indent string
			head   any
			whole  any
		}{
			{name: "pod list", indent: "  ", head: head, whole: full},
			{name: "snapshot message", head: msg(&head), whole: msg(&full)},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%d items", tt.name, n), func(t *testing.T) {
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				var doc []byte
				var err error
				if tt.indent != "" {
					enc.SetIndent("", tt.indent)
					doc, err = json.MarshalIndent(tt.head, "", tt.indent)
				} else {
					doc, err = json.Marshal(tt.head)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := enc.Encode(tt.whole); err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				largest := 0
				w := writerFunc(func(p []byte) (int, error) {
					largest = max(largest, len(p))
					return got.Write(p)
				})
				if err := WriteWithItems(w, func() {}, append(doc, '\n'), tt.indent, each); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Fatalf("streamed encoding differs from the whole one:\n got %.300q\nwant %.300q", got.String(), want.String())
				}
				if largest > listWriteSize {
					t.Errorf("a write of %d bytes, beyond the %d-byte buffer", largest, listWriteSize)
				}
			})
		}
	}
}
