package printers

import (
	"time"
)

// Printable is what a command prints: objects, one per row of its first
// table, for the machine-readable formats, and tables of them for people.
type Printable interface {
	// Items returns the objects, each with apiVersion, kind and the name
	// of its node.
	Items() []Item
	// Tables returns the human-readable tables of items, in their order
	// (--sort-by sorts items first), printed one after another.
	Tables(items []Item, now time.Time) []*Table
}

// Item is one object a command prints.
type Item struct {
	// Wire is the wire object, with apiVersion, kind and nodeName set;
	// Object is how the machine-readable formats print it.
	Wire any
	// Name, Namespace, UID and Labels are the object's metadata, which
	// kubectl's printers read for -o name, -L and --show-labels.
	Name, Namespace, UID string
	Labels               map[string]string
	// Node is the node the object is of, which -o name prints before its
	// name (nameObject).
	Node string
}

// List is a kubectl-style v1 List, which the machine-readable formats print
// whether the command covered one node or many: its items carry their node's
// name, so that one jsonpath fits both.
type List struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []any  `json:"items"`
}

// listOf returns the List of the items' Objects.
func listOf(items []Item) (List, error) {
	l := List{APIVersion: "v1", Kind: "List", Items: make([]any, 0, len(items))}
	for _, it := range items {
		o, err := it.Object()
		if err != nil {
			return List{}, err
		}
		l.Items = append(l.Items, o)
	}
	return l, nil
}
