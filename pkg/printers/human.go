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

	"github.com/podsrc/podsrc/pkg/memsize"
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
	// ErrOut, when set, hears "No resources found" for an empty result,
	// as from kubectl get, followed by Scope (NoResources).
	ErrOut io.Writer
	Scope  string
	// Budget, when set, bounds the rows PrintChunk holds: they draw from
	// the command's budget, as the answers do.
	Budget Budget

	// chunks is the tab writer of a live table (printChunkTable), which
	// remembers the column widths from chunk to chunk; minWidths are the
	// widths its columns start with. chunked says a chunk with rows came.
	chunks    *alignWriter
	minWidths []int
	chunked   bool
	// held are the rows PrintChunk holds, heldBytes what they take of
	// Budget, and heldHeader their header line.
	held       []heldRow
	heldBytes  int64
	heldHeader string
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

// PrintChunk implements ChunkPrinter: it renders the first table's rows
// and holds them, their cells and no more, until PrintRest aligns them all
// to the widest cell, as kubectl get does (within MaxBytes: a chunk that
// does not fit fails with a *HeldError, and is not held).
func (h *HumanPrinter) PrintChunk(p Printable, _ io.Writer) (bool, error) {
	tables := p.Tables(p.Items(), h.now())
	if len(tables[0].Rows) == 0 {
		return len(tables) > 1, nil
	}
	header, rows, err := h.render(tables[0])
	if err != nil {
		return false, err
	}
	size := memsize.Of(&rows)
	if h.Budget != nil && !h.Budget.Take(size) {
		return false, &HeldError{Budget: h.Budget.String()}
	}
	h.heldBytes += size
	h.held = append(h.held, rows...)
	h.heldHeader = header
	h.chunked = true
	return len(tables) > 1, nil
}

// HeldError says that a chunk's rows, held until all nodes answered to be
// aligned, would take the command past its Budget (--max-bytes).
type HeldError struct{ Budget string }

// Error implements error.
func (e *HeldError) Error() string {
	return fmt.Sprintf("its rows, held to align them until all nodes answered, would take this command past the %s it holds of what agents sent, across nodes (--max-bytes): ask fewer nodes at once (name the nodes, or a narrower --node-selector), narrow the request, or raise --max-bytes", e.Budget)
}

// printChunkTable prints t, the rows of a live table (WatchTable), at
// once through the tab writer of the chunks, which remembers the column
// widths from chunk to chunk; the header goes with the first rows.
func (h *HumanPrinter) printChunkTable(t *Table, w io.Writer) error {
	if len(t.Rows) == 0 {
		return nil
	}
	if h.chunks == nil {
		h.chunks = newAlignWriter(nil)
		h.chunks.widths = h.minWidths
	}
	header, rows, err := h.render(t)
	if err != nil {
		return err
	}
	printHeader := !h.chunked
	h.chunked = true
	return h.emit(h.chunks, header, printHeader, rows, w)
}

// PrintRest implements ChunkPrinter: the rows held, aligned, then the
// tables that follow the first.
func (h *HumanPrinter) PrintRest(all Printable, w io.Writer) error {
	if !h.chunked {
		h.noResources()
	} else if err := h.emit(newAlignWriter(nil), h.heldHeader, true, h.held, w); err != nil {
		return err
	}
	if h.Budget != nil {
		h.Budget.Give(h.heldBytes)
	}
	h.held, h.heldBytes = nil, 0
	return h.printTables(all.Tables(all.Items(), h.now())[1:], h.chunked, w)
}

// noResources says, as kubectl get does, that there is nothing to show.
func (h *HumanPrinter) noResources() {
	if h.ErrOut != nil {
		NoResources(h.ErrOut, h.Scope)
	}
}

// NoResources says on w, in kubectl get's words, that nothing matched:
// "No resources found", then where the command looked, such as " in
// kube-system namespace on node node-1", and a full stop.
func NoResources(w io.Writer, scope string) {
	if scope == "" {
		fmt.Fprintln(w, "No resources found")
		return
	}
	PrintLine(w, "No resources found%s.", scope)
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
		if err := h.printTable(t, w); err != nil {
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

// printTable prints t, which has rows, aligned on its own.
func (h *HumanPrinter) printTable(t *Table, w io.Writer) error {
	header, rows, err := h.render(t)
	if err != nil {
		return err
	}
	return h.emit(newAlignWriter(nil), header, true, rows, w)
}

// heldRow is a row rendered: its cells separated by tabs, and what
// printing it takes, but not the row's object.
type heldRow struct {
	cells      string
	color      Color
	cellColors map[int]Color
	below      []string
}

// render returns t's header line (empty with --no-headers) and rows as
// kubectl's table printer renders them, the lines below each row with -o
// wide's.
func (h *HumanPrinter) render(t *Table) (string, []heldRow, error) {
	lines, err := h.cellLines(t)
	if err != nil {
		return "", nil, err
	}
	header := ""
	if !h.NoHeaders {
		header, lines = lines[0], lines[1:]
	}
	rows := make([]heldRow, len(lines))
	for j, l := range lines {
		r := t.Rows[j]
		below := r.Below
		if h.Wide {
			below = append(slices.Clip(below), r.WideBelow...)
		}
		rows[j] = heldRow{cells: l, color: r.Color, cellColors: r.CellColors, below: below}
	}
	return header, rows, nil
}

// emit prints rows through aw, then aw's lines to w, colored; the header
// (none with --no-headers) goes through aw, so that the widths account for
// it, and to w when printHeader.
func (h *HumanPrinter) emit(aw *alignWriter, header string, printHeader bool, rows []heldRow, w io.Writer) error {
	var buf bytes.Buffer
	aw.out = &buf
	if !h.NoHeaders {
		if _, err := io.WriteString(aw, header+"\n"); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if _, err := io.WriteString(aw, r.cells+"\n"); err != nil {
			return err
		}
	}
	if err := aw.Flush(); err != nil {
		return fmt.Errorf("printing a table: %w", err)
	}
	aligned := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if !h.NoHeaders {
		if printHeader {
			fmt.Fprintln(w, aligned[0])
		}
		aligned = aligned[1:]
	}
	for j, line := range aligned {
		r := rows[j]
		if h.Color {
			line = paintCells(line, strings.Split(r.cells, "\t"), r.color, r.cellColors)
		}
		out := []string{line}
		for _, b := range r.below {
			l := belowIndent + cellText(b)
			if h.Color {
				l = paint(r.color, l)
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

// paintCells colors line, a row aligned from cells: the row in color, and
// each cell of cellColors in its own.
func paintCells(line string, cells []string, color Color, cellColors map[int]Color) string {
	if len(cellColors) > 0 {
		var b strings.Builder
		rest := line
		for i, c := range cells {
			if !strings.HasPrefix(rest, c) {
				break
			}
			if cc, ok := cellColors[i]; ok && cc != NoColor && c != "" {
				// Back to the row's color after the cell's.
				b.WriteString(paint(cc, c) + string(color))
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
	return paint(color, line)
}
