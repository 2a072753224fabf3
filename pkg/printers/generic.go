package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
)

// GenericPrinter prints the Object of a Printable with the printer of a
// machine-readable format (ToGenericPrinter).
type GenericPrinter struct {
	Delegate printers.ResourcePrinter
}

// Print implements Printer.
func (g *GenericPrinter) Print(p Printable, w io.Writer) error {
	obj, err := ToRuntimeObject(p.Object())
	if err != nil {
		return err
	}
	return g.Delegate.PrintObj(obj, w)
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
