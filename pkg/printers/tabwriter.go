package printers

import (
	"io"
	"strings"
)

// tabWriter is what kubectl's table printer writes through: cells ended
// by tabs, rows by line feeds, aligned on Flush.
type tabWriter interface {
	io.Writer
	Flush() error
}

// The layout of kubectl's tab writer (printers.GetNewTabWriter): a column
// is its widest cell plus padding, and at least minCellWidth.
const (
	cellPadding  = 3
	minCellWidth = 6
)

// alignWriter is the tab writer of every table podsrc prints, lists and
// watches alike: kubectl's layout (printers.GetNewTabWriter, with
// RememberWidths), but cells are measured in terminal columns
// (displayWidth), so that CJK names and emoji stay aligned. It holds what
// is written until Flush, and remembers its column widths from flush to
// flush, so that a column only widens, as in kubectl get --watch.
type alignWriter struct {
	out    io.Writer
	buf    strings.Builder
	widths []int
}

// newAlignWriter returns an alignWriter that writes to out.
func newAlignWriter(out io.Writer) *alignWriter {
	return &alignWriter{out: out}
}

// Write implements io.Writer: it keeps p until Flush.
func (a *alignWriter) Write(p []byte) (int, error) {
	return a.buf.Write(p)
}

// Flush writes the lines held, their cells padded to the widths of their
// columns: the widest cell of each column so far, last cells (not ended by
// a tab) as they are, and no line ends in padding.
func (a *alignWriter) Flush() error {
	text := a.buf.String()
	a.buf.Reset()
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	for _, l := range lines {
		cells := strings.Split(strings.TrimSuffix(l, "\n"), "\t")
		for j, c := range cells[:len(cells)-1] {
			if j == len(a.widths) {
				a.widths = append(a.widths, 0)
			}
			a.widths[j] = max(a.widths[j], displayWidth(c)+cellPadding, minCellWidth)
		}
	}
	var out strings.Builder
	for _, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		cells := strings.Split(body, "\t")
		var line strings.Builder
		for j, c := range cells {
			line.WriteString(c)
			if j < len(cells)-1 {
				line.WriteString(strings.Repeat(" ", a.widths[j]-displayWidth(c)))
			}
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		if nl {
			out.WriteByte('\n')
		}
	}
	_, err := io.WriteString(a.out, out.String())
	return err
}
