package printers

import (
	"bytes"
	"fmt"
	"io"
	"slices"
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
	// Delegate returns a new kubectl table printer (get.HumanPrintFlags)
	// for each table. One printer would remember the columns of its last
	// header and leave out the header of a table with the same columns,
	// and printTable would then take the first row for the header.
	Delegate func() (printers.ResourcePrinter, error)
	// Wide is -o wide: the delegate prints the wide columns, and rows
	// their WideBelow lines.
	Wide bool
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

	// chunks and chunkBuf are the tab writer of PrintChunk and what it
	// writes; chunked says a chunk with rows was printed.
	chunks   tabWriter
	chunkBuf bytes.Buffer
	chunked  bool
}

// Print implements Printer.
func (h *HumanPrinter) Print(p Printable, w io.Writer) error {
	items, err := sortItems(p.Items(), h.SortBy)
	if err != nil {
		return err
	}
	tables := p.Tables(items, h.now())
	if len(tables[0].Rows) == 0 {
		h.noResources()
	}
	return h.printTables(tables, false, w)
}

// PrintChunk implements ChunkPrinter: one tab writer for all chunks
// remembers the column widths, and the delegate prints the header with the
// first rows only.
func (h *HumanPrinter) PrintChunk(p Printable, w io.Writer) (bool, error) {
	tables := p.Tables(p.Items(), h.now())
	t, keep := tables[0], len(tables) > 1
	if len(t.Rows) == 0 {
		return keep, nil
	}
	if h.chunks == nil {
		h.chunks = printers.GetNewTabWriter(&h.chunkBuf)
	}
	header := !h.NoHeaders && !h.chunked
	h.chunked = true
	return keep, h.printTable(t, h.chunks, &h.chunkBuf, header, w)
}

// PrintRest implements ChunkPrinter.
func (h *HumanPrinter) PrintRest(all Printable, w io.Writer) error {
	if !h.chunked {
		h.noResources()
	}
	return h.printTables(all.Tables(all.Items(), h.now())[1:], h.chunked, w)
}

// noResources says, as kubectl get does, that there is nothing to show.
func (h *HumanPrinter) noResources() {
	if h.ErrOut != nil {
		fmt.Fprintln(h.ErrOut, "No resources found.")
	}
}

// printTables prints the tables that have rows one after another, each
// with its own widths, a blank line between; printed says something is
// printed above them.
func (h *HumanPrinter) printTables(tables []*Table, printed bool, w io.Writer) error {
	for _, t := range tables {
		if len(t.Rows) == 0 {
			continue
		}
		if printed {
			fmt.Fprintln(w)
		}
		printed = true
		var buf bytes.Buffer
		if err := h.printTable(t, printers.GetNewTabWriter(&buf), &buf, !h.NoHeaders, w); err != nil {
			return err
		}
	}
	return nil
}

// now is the time ages are computed against.
func (h *HumanPrinter) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// printTable prints t, which has rows, with a new delegate through tw,
// which writes to buf, then buf's lines to w, colored; header says whether
// the header line the delegate prints (without --no-headers) goes to w. It
// goes through tw in any case, so that a chunk's widths account for it.
func (h *HumanPrinter) printTable(t *Table, tw tabWriter, buf *bytes.Buffer, header bool, w io.Writer) error {
	mt, err := t.metaTable()
	if err != nil {
		return err
	}
	delegate, err := h.Delegate()
	if err != nil {
		return fmt.Errorf("printing a table: %w", err)
	}
	buf.Reset()
	if err := delegate.PrintObj(mt, tw); err != nil {
		return fmt.Errorf("printing a table: %w", err)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("printing a table: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := len(t.Rows)
	if !h.NoHeaders {
		want++
	}
	if len(lines) != want {
		return fmt.Errorf("printing a table: the table printer wrote %d lines for %d rows", len(lines), len(t.Rows))
	}
	if !h.NoHeaders {
		if header {
			fmt.Fprintln(w, lines[0])
		}
		lines = lines[1:]
	}
	for j, line := range lines {
		out := []string{line}
		var c Color
		if j < len(t.Rows) {
			c = t.Rows[j].Color
			below := t.Rows[j].Below
			if h.Wide {
				below = append(slices.Clip(below), t.Rows[j].WideBelow...)
			}
			for _, b := range below {
				out = append(out, belowIndent+cellText(b))
			}
		}
		for _, l := range out {
			if h.Color {
				l = paint(c, l)
			}
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}
