package printers

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
)

// Printer prints a Printable.
type Printer interface {
	Print(p Printable, w io.Writer) error
}

// HumanPrinter prints the tables of a Printable with kubectl's table
// printer: upper-case headers, tab-aligned columns, wide columns only with
// -o wide, label columns with -L and --show-labels, cells escaped for the
// terminal.
type HumanPrinter struct {
	// Delegate is kubectl's table printer (get.HumanPrintFlags).
	Delegate printers.ResourcePrinter
	// NoHeaders says the delegate prints no header line.
	NoHeaders bool
	// SortBy is --sort-by: a JSONPath over the items.
	SortBy string
	// Color colors rows that call for attention.
	Color bool
	// Now is the time ages are computed against.
	Now func() time.Time
	// ErrOut, when set, hears "No resources found." for an empty result,
	// as from kubectl get.
	ErrOut io.Writer
}

// Print implements Printer.
func (h *HumanPrinter) Print(p Printable, w io.Writer) error {
	now := time.Now()
	if h.Now != nil {
		now = h.Now()
	}
	items, err := sortItems(p.Items(), h.SortBy)
	if err != nil {
		return err
	}
	printed := false
	for i, t := range p.Tables(items, now) {
		if len(t.Rows) == 0 {
			if i == 0 && h.ErrOut != nil {
				fmt.Fprintln(h.ErrOut, "No resources found.")
			}
			continue
		}
		mt, err := t.metaTable()
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		tw := printers.GetNewTabWriter(&buf)
		if err := h.Delegate.PrintObj(mt, tw); err != nil {
			return fmt.Errorf("printing a table: %w", err)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("printing a table: %w", err)
		}
		if printed {
			fmt.Fprintln(w)
		}
		printed = true
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if !h.NoHeaders {
			fmt.Fprintln(w, lines[0])
			lines = lines[1:]
		}
		for j, line := range lines {
			if h.Color && j < len(t.Rows) {
				line = paint(t.Rows[j].Color, line)
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return nil
}
