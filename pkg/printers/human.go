package printers

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/liggitt/tabwriter"
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

	// chunks is the tab writer of PrintChunk, which remembers the column
	// widths from chunk to chunk; chunked says a chunk with rows was
	// printed.
	chunks  *alignWriter
	chunked bool
	// minWidths are the widths the chunks' columns start with.
	minWidths []int
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
// remembers the column widths, and the header is printed with the first
// rows only.
func (h *HumanPrinter) PrintChunk(p Printable, w io.Writer) (bool, error) {
	tables := p.Tables(p.Items(), h.now())
	return len(tables) > 1, h.printChunkTable(tables[0], w)
}

// printChunkTable prints t, one chunk's rows, through the tab writer of
// the chunks.
func (h *HumanPrinter) printChunkTable(t *Table, w io.Writer) error {
	if len(t.Rows) == 0 {
		return nil
	}
	if h.chunks == nil {
		h.chunks = newAlignWriter(nil)
		h.chunks.widths = h.minWidths
	}
	header := !h.NoHeaders && !h.chunked
	h.chunked = true
	return h.printTable(t, h.chunks, header, w)
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
		if err := h.printTable(t, newAlignWriter(nil), !h.NoHeaders, w); err != nil {
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

// printTable prints t, which has rows, through aw, then aw's lines to w,
// colored; header says whether the header line (without --no-headers) goes
// to w. It goes through aw in any case, so that a chunk's widths account
// for it.
func (h *HumanPrinter) printTable(t *Table, aw *alignWriter, header bool, w io.Writer) error {
	lines, err := h.cellLines(t)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	aw.out = &buf
	for _, l := range lines {
		if _, err := io.WriteString(aw, l+"\n"); err != nil {
			return err
		}
	}
	if err := aw.Flush(); err != nil {
		return fmt.Errorf("printing a table: %w", err)
	}
	aligned := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if !h.NoHeaders {
		if header {
			fmt.Fprintln(w, aligned[0])
		}
		aligned, lines = aligned[1:], lines[1:]
	}
	for j, line := range aligned {
		r := t.Rows[j]
		if h.Color {
			line = paintCells(line, strings.Split(lines[j], "\t"), r)
		}
		out := []string{line}
		below := r.Below
		if h.Wide {
			below = append(slices.Clip(below), r.WideBelow...)
		}
		for _, b := range below {
			l := belowIndent + cellText(b)
			if h.Color {
				l = paint(r.Color, l)
			}
			out = append(out, l)
		}
		for _, l := range out {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// cellLines returns t as kubectl's table printer (a new delegate) prints
// it, without the widths: a line per row, the header first unless
// --no-headers, cells separated by a tab.
func (h *HumanPrinter) cellLines(t *Table) ([]string, error) {
	mt, err := t.metaTable()
	if err != nil {
		return nil, err
	}
	delegate, err := h.Delegate()
	if err != nil {
		return nil, fmt.Errorf("printing a table: %w", err)
	}
	// kubectl's table printer writes through a tab writer it is given:
	// this one leaves exactly one tab between cells (a tab is as wide as
	// any cell), which alignWriter aligns.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, math.MaxInt32, 1, '\t', 0)
	if err := delegate.PrintObj(mt, tw); err != nil {
		return nil, fmt.Errorf("printing a table: %w", err)
	}
	if err := tw.Flush(); err != nil {
		return nil, fmt.Errorf("printing a table: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := len(t.Rows)
	if !h.NoHeaders {
		want++
	}
	if len(lines) != want {
		return nil, fmt.Errorf("printing a table: the table printer wrote %d lines for %d rows", len(lines), len(t.Rows))
	}
	return lines, nil
}

// paintCells colors line, row r aligned from cells: the row in its color,
// and each cell of r.CellColors in its own.
func paintCells(line string, cells []string, r Row) string {
	if len(r.CellColors) > 0 {
		var b strings.Builder
		rest := line
		for i, c := range cells {
			if !strings.HasPrefix(rest, c) {
				break
			}
			if cc, ok := r.CellColors[i]; ok && cc != NoColor && c != "" {
				// Back to the row's color after the cell's.
				b.WriteString(paint(cc, c) + string(r.Color))
			} else {
				b.WriteString(c)
			}
			rest = rest[len(c):]
			pad := len(rest) - len(strings.TrimLeft(rest, " "))
			b.WriteString(rest[:pad])
			rest = rest[pad:]
		}
		line = b.String() + rest
	}
	return paint(r.Color, line)
}
