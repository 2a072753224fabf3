package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// WatchMessage is one message of a node's event stream as kubectl podsrc
// watch and events print it in the machine-readable formats: the stream
// message with its kind and the node it came from. Its Item (messageItem)
// names it.
type WatchMessage struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string `json:"nodeName"`
	v1alpha1.StreamMessage
}

// messageItem returns m, a message of node's stream, as an Item: an event
// named by its sequence number, in its pod's namespace (a PLEG event), and
// any other message by its type and the sequence numbers it refers to
// (gap-3-9, lagging-12).
func messageItem(node string, m *v1alpha1.StreamMessage) Item {
	w := WatchMessage{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindStreamMessage), NodeName: node, StreamMessage: *m}
	it := Item{Wire: w, Node: node}
	if m.Snapshot != nil {
		it.Wire = snapshotMessage{WatchMessage: w, node: node}
	}
	switch {
	case m.Type == v1alpha1.MessageEvent && m.Event != nil:
		it.Name, it.Namespace = strconv.FormatUint(m.Event.Seq, 10), m.Event.Namespace
	case m.Type == v1alpha1.MessageGap:
		it.Name = fmt.Sprintf("%s-%d-%d", m.Type, m.From, m.To)
	default:
		it.Name = fmt.Sprintf("%s-%d", m.Type, m.Seq)
	}
	return it
}

// encodedWatch writes each message encoded whole.
type encodedWatch struct {
	mu     sync.Mutex
	out    io.Writer
	encode func(any) ([]byte, error)
}

// PrintMessage implements WatchPrinter.
func (e *encodedWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	obj, err := messageItem(node, m).Object()
	if err != nil {
		return err
	}
	b, err := e.encode(obj)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err = e.out.Write(b)
	return err
}

// genericWatch prints each message with a cli-runtime printer.
type genericWatch struct {
	mu  sync.Mutex
	out io.Writer
	p   printers.ResourcePrinter
	// names says p is -o name (Item.nameObject).
	names bool
}

// PrintMessage implements WatchPrinter.
func (g *genericWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	it := messageItem(node, m)
	obj, err := it.metaObject()
	if g.names {
		obj, err = it.nameObject()
	}
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.p.PrintObj(obj, g.out)
}

// snapshotMessage is a snapshot message as the machine-readable formats
// print it: its items are the objects pods -o json prints (Pods.Items),
// with their kind, node and metadata.
type snapshotMessage struct {
	WatchMessage
	node string
}

// MarshalJSON implements json.Marshaler.
func (s snapshotMessage) MarshalJSON() ([]byte, error) {
	pods := Pods{Lists: []v1alpha1.PodList{{NodeName: s.node, Items: s.Snapshot.Items}}}
	items, err := listOf(pods.Items())
	if err != nil {
		return nil, err
	}
	snapshot := *s.Snapshot
	snapshot.Items = nil
	obj, err := ToRuntimeObject(snapshot)
	if err != nil {
		return nil, err
	}
	m := obj.(*unstructured.Unstructured).Object
	m["items"] = items.Items
	w := s.WatchMessage
	w.Snapshot = nil
	obj, err = ToRuntimeObject(w)
	if err != nil {
		return nil, err
	}
	out := obj.(*unstructured.Unstructured).Object
	out["snapshot"] = m
	return json.Marshal(out)
}
