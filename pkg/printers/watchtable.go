package printers

import (
	"io"
	"sync"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// WatchTable prints stream messages as a live table like kubectl get -w,
// with the table engine of the lists (HumanPrinter): the header once, then
// a line per event as it arrives. Columns keep their width from line to
// line and widen when a value needs it.
type WatchTable struct {
	Out       io.Writer
	Wide      bool
	NoHeaders bool
	Color     bool
	Display   WatchDisplay

	mu      sync.Mutex
	table   *HumanPrinter
	columns Columns[watchRow]
	clock   *watchClock
	nodes   nodeColors
}

// PrintMessage implements WatchPrinter.
func (t *WatchTable) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.table == nil {
		opts := printers.PrintOptions{Wide: t.Wide, NoHeaders: t.NoHeaders}
		t.table = &HumanPrinter{
			Delegate:  func() (printers.ResourcePrinter, error) { return printers.NewTablePrinter(opts), nil },
			Wide:      t.Wide,
			NoHeaders: t.NoHeaders,
			Color:     t.Color,
		}
		t.columns = WatchColumns()
		t.table.minWidths = t.columns.minWidths(t.Wide)
		t.clock = newWatchClock(t.Display.Times, t.Display.Location, t.Display.Start)
		t.table.minWidths[timeColumn] = max(t.table.minWidths[timeColumn], t.clock.width()+cellPadding)
		t.nodes = nodeColors{}
	}
	var cellColors map[int]Color
	if t.Display.NodeColors {
		cellColors = map[int]Color{nodeColumn: t.nodes.of(node)}
	}
	tbl := t.columns.Table()
	for _, r := range watchRows(node, m, t.clock.cell(messageTime(m)), t.Wide) {
		tbl.Rows = append(tbl.Rows, Row{Cells: t.columns.Cells(r), Color: r.Color, CellColors: cellColors})
	}
	return t.table.printChunkTable(tbl, t.Out)
}

// timeColumn and nodeColumn are the indexes of TIME and NODE in
// WatchColumns.
const (
	timeColumn = 0
	nodeColumn = 1
)
