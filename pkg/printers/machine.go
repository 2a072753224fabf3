package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"
)

// How the machine-readable formats keep what an agent sends from steering
// a terminal: JSON and YAML keep the values and escape what their encoders
// leave raw; a template gets its values escaped, and its own text as
// written (kubectl prints both raw).

// encodedPrinter hands its delegate (json, yaml, kyaml) the object as JSON
// escaped by EscapeControls, in a runtime.Unknown, and writes what it
// prints through NewEscapingWriter. sigs.k8s.io/yaml refuses DEL and C1
// controls in a string; escaped, the YAML printers write them with YAML's
// escapes, and the values stay what the agent sent (bidi controls in an
// unquoted YAML string aside, which show as \uXXXX).
type encodedPrinter struct{ delegate printers.ResourcePrinter }

// PrintObj implements printers.ResourcePrinter.
func (p encodedPrinter) PrintObj(obj runtime.Object, w io.Writer) error {
	raw, err := escapedJSON(obj)
	if err != nil {
		return err
	}
	return p.delegate.PrintObj(&runtime.Unknown{Raw: raw}, NewEscapingWriter(w))
}

// escapedJSON encodes v as compact JSON escaped by EscapeControls: compact
// JSON has no line feeds or tabs, and what EscapeControls writes there
// (\uXXXX) is JSON's own escape, so the values stay the same.
func escapedJSON(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the output: %w", err)
	}
	return []byte(EscapeControls(string(j))), nil
}

// MarshalYAML encodes v as YAML, as sigs.k8s.io/yaml does, from
// escapedJSON (see encodedPrinter).
func MarshalYAML(v any) ([]byte, error) {
	j, err := escapedJSON(v)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	return y, nil
}

// templatePrinter prints a template (jsonpath, go-template) over the object
// with EscapeControls applied to every string value, so that a value
// cannot break a line, while the template's own text stays as written.
type templatePrinter struct{ delegate printers.ResourcePrinter }

// PrintObj implements printers.ResourcePrinter.
func (p templatePrinter) PrintObj(obj runtime.Object, w io.Writer) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		obj = &unstructured.Unstructured{Object: escapeValues(u.Object).(map[string]any)}
	}
	return p.delegate.PrintObj(obj, w)
}

// escapeValues returns v, decoded JSON, with EscapeControls applied to every
// string in it, keys included.
func escapeValues(v any) any {
	switch t := v.(type) {
	case string:
		return EscapeControls(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[EscapeControls(k)] = escapeValues(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = escapeValues(e)
		}
		return out
	}
	return v
}

// PrintEncoded writes v as indented JSON (format "json") or as YAML
// ("yaml"), escaped as the other machine-readable output is, for the
// commands that print one object of their own rather than items.
func PrintEncoded(w io.Writer, format string, v any) error {
	var b []byte
	var err error
	switch format {
	case "json":
		if b, err = json.MarshalIndent(v, "", "  "); err == nil {
			b = append(b, '\n')
		}
	case "yaml":
		b, err = MarshalYAML(v)
	default:
		return fmt.Errorf("--output %q: want json or yaml", format)
	}
	if err != nil {
		return fmt.Errorf("encoding the output: %w", err)
	}
	_, err = NewEscapingWriter(w).Write(b)
	return err
}
