package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
)

// GenericPrinter prints the items of a Printable with the printer of a
// machine-readable format (ToGenericPrinter): as one flat List, or, for
// -o name and -o custom-columns, object by object as kubectl's printers
// read them (metaObject).
type GenericPrinter struct {
	Delegate printers.ResourcePrinter
	// Itemwise says the delegate is -o name or -o custom-columns.
	Itemwise bool
	// Names says the delegate is -o name, which prints each item's node
	// before its name (Item.nameObject).
	Names bool
	// SortBy is --sort-by: a JSONPath over the items.
	SortBy string
	// Single says the command printed one object, which the formats print
	// as it is rather than in a List, as kubectl get does one named object.
	Single bool

	// chunks is the tab writer of PrintChunk: one for all chunks, which
	// remembers the column widths of -o custom-columns.
	chunks tabWriter
}

// Print implements Printer.
func (g *GenericPrinter) Print(p Printable, w io.Writer) error {
	items, err := sortItems(p.Items(), g.SortBy)
	if err != nil {
		return err
	}
	var obj runtime.Object
	switch {
	case g.Itemwise && g.Single && len(items) == 1:
		obj, err = items[0].metaObject()
		if g.Names {
			obj, err = items[0].nameObject()
		}
	case g.Single && len(items) == 1:
		var m map[string]any
		if m, err = items[0].Object(); err == nil {
			obj = &unstructured.Unstructured{Object: m}
		}
	case g.Itemwise:
		obj, err = metaList(items, g.Names)
	default:
		var l List
		if l, err = listOf(items); err == nil {
			obj, err = ToRuntimeObject(l)
		}
	}
	if err != nil {
		return err
	}
	return g.Delegate.PrintObj(obj, w)
}

// PrintChunk implements ChunkPrinter for -o name and -o custom-columns:
// the delegate, reused, prints the custom columns' header once. PrintRest
// needs no answer.
func (g *GenericPrinter) PrintChunk(p Printable, w io.Writer) (bool, error) {
	items := p.Items()
	if len(items) == 0 {
		return false, nil
	}
	obj, err := metaList(items, g.Names)
	if err != nil {
		return false, err
	}
	if g.chunks == nil {
		g.chunks = printers.GetNewTabWriter(w)
	}
	if err := g.Delegate.PrintObj(obj, g.chunks); err != nil {
		return false, err
	}
	return false, g.chunks.Flush()
}

// PrintRest implements ChunkPrinter: the items were all printed.
func (g *GenericPrinter) PrintRest(Printable, io.Writer) error {
	return nil
}

// ToRuntimeObject turns a JSON-serializable value into an unstructured
// object the cli-runtime printers accept.
func ToRuntimeObject(v any) (runtime.Object, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the output: %w", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("encoding the output: %w", err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
