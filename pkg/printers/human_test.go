package printers

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/internal/golden"
)

// sameColumns is a Printable of two tables with the same columns, the
// second in red.
type sameColumns struct{}

func (sameColumns) Items() []Item { return []Item{{Name: "a"}} }

func (sameColumns) Tables([]Item, time.Time) []*Table {
	cols := []metav1.TableColumnDefinition{col("Name", false), col("Value", false)}
	return []*Table{
		{Columns: cols, Rows: []Row{{Cells: []any{"a", "1"}}, {Cells: []any{"b", "2"}}}},
		{Columns: cols, Rows: []Row{{Cells: []any{"c", "3"}, Color: Red}, {Cells: []any{"d", "4"}}}},
	}
}

// TestGoldenHeaders: every table printed has its header, and no row is
// taken for one, however the printer was used before: kubectl's table
// printer remembers the columns of its last header and leaves out the
// header of a table with the same columns, which printTable once took
// for the first row.
func TestGoldenHeaders(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *PrintFlags)
		print func(t *testing.T, p Printer, out *bytes.Buffer)
	}{
		{"printed twice", nil, func(t *testing.T, p Printer, out *bytes.Buffer) {
			for range 2 {
				if err := p.Print(sameColumns{}, out); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"printed twice without headers", func(f *PrintFlags) { *f.NoHeaders = true }, func(t *testing.T, p Printer, out *bytes.Buffer) {
			for range 2 {
				if err := p.Print(sameColumns{}, out); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"chunks then a table with the same columns", nil, func(t *testing.T, p Printer, out *bytes.Buffer) {
			cp, _ := AsChunkPrinter(p)
			for range 2 {
				if _, err := cp.PrintChunk(sameColumns{}, out); err != nil {
					t.Fatal(err)
				}
			}
			if err := cp.PrintRest(sameColumns{}, out); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewPrintFlags()
			f.Color = "always"
			if tc.setup != nil {
				tc.setup(f)
			}
			var out bytes.Buffer
			p, err := f.ToPrinter(&out, &out, func() time.Time { return now })
			if err != nil {
				t.Fatal(err)
			}
			tc.print(t, p, &out)
			golden.Check(t, "headers-"+strings.ReplaceAll(tc.name, " ", "-")+".txt", out.Bytes())
		})
	}
}
