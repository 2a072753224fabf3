package printers

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Table is one human-readable table: columns with Priority 1 only show with
// -o wide.
type Table struct {
	Columns []metav1.TableColumnDefinition
	Rows    []Row
}

// Row is one line of a Table.
type Row struct {
	// Cells hold what the agent sent as it is; they are escaped when
	// printed (cellText).
	Cells []any
	// Color, when set and color is on, colors the whole line.
	Color Color
	// CellColors, when color is on, color single cells over the row's
	// color: the cell of each column index (of the columns before the
	// first that -o wide adds).
	CellColors map[int]Color
	// Item, when set, is the object of the row: its TableRow.Object, where
	// the table printer finds the labels of -L and --show-labels.
	Item *Item
	// Below are lines printed under the row, indented by belowIndent and
	// escaped, in its color: text too long for a cell (placeLong);
	// WideBelow are those of wide columns, printed only with -o wide.
	Below, WideBelow []string
}

// col returns a column definition; wide columns show only with -o wide.
func col(name string, wide bool) metav1.TableColumnDefinition {
	c := metav1.TableColumnDefinition{Name: name, Type: "string"}
	if wide {
		c.Priority = 1
	}
	return c
}

// metaTable converts t for the cli-runtime table printer.
func (t *Table) metaTable() (*metav1.Table, error) {
	mt := &metav1.Table{ColumnDefinitions: t.Columns}
	for _, r := range t.Rows {
		// Copied: with --show-kind the table printer rewrites the name cell.
		cells := make([]any, len(r.Cells))
		for i, c := range r.Cells {
			cells[i] = cellText(c)
		}
		row := metav1.TableRow{Cells: cells}
		if r.Item != nil {
			obj, err := r.Item.metaObject()
			if err != nil {
				return nil, err
			}
			row.Object.Object = obj
		}
		mt.Rows = append(mt.Rows, row)
	}
	return mt, nil
}

// cellText is how every cell of a table or a watch line is printed: one
// line with its control characters escaped (EscapeControls), so that
// neither a line break nor a terminal sequence an agent sent takes effect.
func cellText(c any) string {
	return EscapeControls(fmt.Sprint(c))
}
