package printers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Column is one column of a table, in the spirit of Inspektor Gadget's
// columns: its header, whether only -o wide shows it, and its cell of a
// row's object. A table's column list is the one place that says what the
// table shows: the table, -o wide, the completion of -o custom-columns and
// the docs' column reference all read it.
type Column[T any] struct {
	// Header is the column's name, as kubectl's table printer upper-cases
	// it ("Last Exit": LAST EXIT).
	Header string
	// Help says in one line what the column shows, for the docs' column
	// reference.
	Help string
	// Wide says only -o wide shows the column.
	Wide bool
	// Path, when set, is the JSONPath of the field the column shows in
	// the objects -o json prints, which -o custom-columns completes.
	Path string
	// MinWidth, when set, is how wide the live table's column is from its
	// first line on, so that the first events do not set widths the next
	// ones widen at once.
	MinWidth int
	// Cell returns the column's cell of a row's object, as the agent sent
	// it: cells are escaped when printed (cellText).
	Cell func(T) any
}

// Columns is a table's column list, in the order the table shows them.
type Columns[T any] []Column[T]

// Definitions returns the column definitions of the cli-runtime table
// printer: wide columns have priority 1.
func (cs Columns[T]) Definitions() []metav1.TableColumnDefinition {
	out := make([]metav1.TableColumnDefinition, len(cs))
	for i, c := range cs {
		out[i] = col(c.Header, c.Wide)
		if c.Header == "Name" {
			out[i].Format = "name"
		}
	}
	return out
}

// Cells returns the cells of v's row, one per column.
func (cs Columns[T]) Cells(v T) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c.Cell(v)
	}
	return out
}

// minWidths returns the MinWidths of the columns a table shows (wide: with
// -o wide), as alignWriter widths.
func (cs Columns[T]) minWidths(wide bool) []int {
	var out []int
	for _, c := range cs {
		if c.Wide && !wide {
			continue
		}
		out = append(out, max(c.MinWidth+cellPadding, minCellWidth))
	}
	return out
}

// Table returns an empty table with the columns.
func (cs Columns[T]) Table() *Table {
	return &Table{Columns: cs.Definitions()}
}

// Reference describes the columns, for completion and the docs: each
// column's header, its meaning, whether it is wide and its JSONPath.
func (cs Columns[T]) Reference() []ColumnInfo {
	out := make([]ColumnInfo, len(cs))
	for i, c := range cs {
		out[i] = ColumnInfo{Header: c.Header, Help: c.Help, Wide: c.Wide, Path: c.Path}
	}
	return out
}

// ColumnInfo is what a column list tells of a column, without its cell.
type ColumnInfo struct {
	Header string
	Help   string
	Wide   bool
	Path   string
}
