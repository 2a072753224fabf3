package printers

import (
	"time"
)

// Printable is what a command prints: an object for the machine-readable
// formats and tables for people.
type Printable interface {
	// Object returns what -o json|yaml|jsonpath|go-template print: a
	// top-level object with apiVersion and kind.
	Object() any
	// Tables returns the human-readable tables, printed one after another.
	Tables(now time.Time) []*Table
}

// List is a kubectl-style v1 List, which the machine-readable formats print
// when a command covers more than one node.
type List struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []any  `json:"items"`
}

// listOrSingle returns the one item when single, otherwise a List of all.
func listOrSingle[T any](items []T, single bool) any {
	if single && len(items) == 1 {
		return items[0]
	}
	l := List{APIVersion: "v1", Kind: "List", Items: []any{}}
	for _, it := range items {
		l.Items = append(l.Items, it)
	}
	return l
}
