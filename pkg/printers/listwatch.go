package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// ListWatch collects the messages of every node's stream, to print them as
// one List.
type ListWatch struct {
	mu       sync.Mutex
	out      io.Writer
	printer  *GenericPrinter
	items    []Item
	bytes    int64
	maxBytes int64
}

// PrintMessage implements WatchPrinter: it keeps m, and fails once the
// messages kept take more than the bound, counted as JSON.
func (l *ListWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += int64(len(b))
	if l.maxBytes > 0 && l.bytes > l.maxBytes {
		return fmt.Errorf("the events of all nodes, printed as one List, take more than the %d MiB of --max-bytes: narrow them (--since, --tail, --pod, --type), print them as they come (-o name or custom-columns, or the table), or raise --max-bytes", l.maxBytes>>20)
	}
	l.items = append(l.items, messageItem(node, m))
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
