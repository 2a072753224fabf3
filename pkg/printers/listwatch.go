package printers

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/memsize"
)

// ListWatch collects the messages of every node's stream, to print them as
// one List.
type ListWatch struct {
	mu      sync.Mutex
	out     io.Writer
	printer *GenericPrinter
	items   []Item
	// budget, when set, bounds the items kept.
	budget Budget
}

// PrintMessage implements WatchPrinter: it keeps m, and fails once the
// messages kept would take the command past its budget.
func (l *ListWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	it := messageItem(node, m)
	if l.budget != nil && !l.budget.Take(memsize.Of(&it)) {
		return fmt.Errorf("the events of all nodes, printed as one List, would take this command past the %s it holds of what agents sent (--max-bytes): narrow them (--since, --tail, --pod, --type), print them as they come (-o name or custom-columns, or the table), or raise --max-bytes", l.budget)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, it)
	return nil
}

// Flush prints the messages kept as one List, in the order they came.
func (l *ListWatch) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.printer.Print(itemList(l.items), l.out)
}

// itemList is a Printable of items with no table, for the machine-readable
// formats.
type itemList []Item

// Items implements Printable.
func (l itemList) Items() []Item { return l }

// Tables implements Printable: none.
func (itemList) Tables([]Item, time.Time) []*Table { return nil }
