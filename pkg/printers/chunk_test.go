package printers

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestGoldenChunks prints the answers of nodes one node at a time, as
// printEach does when they come, then what follows the first table:
// one header, every row of a table aligned to the widest cell of any node
// (node-2's FAILURES), the PLEG's other tables at the end.
func TestGoldenChunks(t *testing.T) {
	type nodes struct {
		each []Printable
		all  Printable
	}
	pleg, pods, sources := fixturePLEG(), fixturePods(), fixtureSources()
	byNode := map[string]nodes{
		"pleg":    {[]Printable{PLEG{Statuses: pleg[:1]}, PLEG{Statuses: pleg[1:]}}, PLEG{Statuses: pleg}},
		"pods":    {[]Printable{Pods{Lists: pods[:1]}, Pods{Lists: pods[1:]}}, Pods{Lists: pods}},
		"sources": {[]Printable{Sources{Lists: sources[:1]}, Sources{Lists: sources[1:]}}, Sources{Lists: sources}},
	}
	tests := []struct {
		name, printable string
		setup           func(f *PrintFlags)
	}{
		{"pleg-table", "pleg", func(*PrintFlags) {}},
		{"pleg-no-headers", "pleg", func(f *PrintFlags) { *f.NoHeaders = true }},
		{"pods-label-columns-wide", "pods", func(f *PrintFlags) {
			*f.OutputFormat = "wide"
			*f.HumanReadableFlags.ColumnLabels = []string{"app"}
		}},
		{"sources-custom-columns", "sources", func(f *PrintFlags) {
			*f.OutputFormat = "custom-columns=NODE:.nodeName,SOURCE:.metadata.name,PODS:.pods"
		}},
		{"sources-name", "sources", func(f *PrintFlags) { *f.OutputFormat = "name" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewPrintFlags()
			f.List, f.Labels = true, true
			tc.setup(f)
			var out, errOut bytes.Buffer
			pr, err := f.ToPrinter(&out, &errOut, func() time.Time { return now })
			if err != nil {
				t.Fatal(err)
			}
			cp, ok := AsChunkPrinter(pr)
			if !ok {
				t.Fatalf("%s does not print node by node", tc.name)
			}
			n := byNode[tc.printable]
			for _, p := range n.each {
				if _, err := cp.PrintChunk(p, &out); err != nil {
					t.Fatal(err)
				}
			}
			if err := cp.PrintRest(n.all, &out); err != nil {
				t.Fatal(err)
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr %q", errOut.String())
			}
			golden.Check(t, "chunks-"+tc.name+".txt", out.Bytes())
		})
	}
}

// TestChunksOnlyWithoutSortByOrAList: --sort-by and the formats that print
// one List take all the answers at once.
func TestChunksOnlyWithoutSortByOrAList(t *testing.T) {
	tests := []struct {
		output, sortBy string
		want           bool
	}{
		{"", "", true},
		{"wide", "", true},
		{"name", "", true},
		{"custom-columns=N:.nodeName", "", true},
		{"", "{.nodeName}", false},
		{"name", "{.nodeName}", false},
		{"json", "", false},
		{"yaml", "", false},
		{"jsonpath={.items}", "", false},
		{"go-template={{.items}}", "", false},
	}
	for _, tc := range tests {
		f := NewPrintFlags()
		f.List = true
		*f.OutputFormat = tc.output
		*f.HumanReadableFlags.SortBy = tc.sortBy
		pr, err := f.ToPrinter(&bytes.Buffer{}, &bytes.Buffer{}, time.Now)
		if err != nil {
			t.Fatalf("-o %q: %v", tc.output, err)
		}
		if _, got := AsChunkPrinter(pr); got != tc.want {
			t.Errorf("-o %q --sort-by %q: node by node %v, want %v", tc.output, tc.sortBy, got, tc.want)
		}
	}
}

// TestEmptyChunksSayNoResources: no node had rows.
func TestEmptyChunksSayNoResources(t *testing.T) {
	var out, errOut bytes.Buffer
	pr, err := NewPrintFlags().ToPrinter(&out, &errOut, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := AsChunkPrinter(pr)
	empty := Pods{Lists: []v1alpha1.PodList{{NodeName: "n"}}}
	if _, err := cp.PrintChunk(empty, &out); err != nil {
		t.Fatal(err)
	}
	if err := cp.PrintRest(empty, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || strings.TrimSpace(errOut.String()) != "No resources found" {
		t.Fatalf("out %q, errOut %q", out.String(), errOut.String())
	}
}

// testBudget is a Budget of total bytes.
type testBudget struct{ total, used int64 }

func (b *testBudget) Take(n int64) bool {
	if b.used+n > b.total {
		return false
	}
	b.used += n
	return true
}
func (b *testBudget) Give(n int64)   { b.used -= n }
func (b *testBudget) String() string { return fmt.Sprintf("%d bytes", b.total) }

// TestChunksHeldWithinBudget: a table holds the rendered rows of its
// chunks within its Budget, and gives them back once printed; a chunk that
// does not fit fails with a HeldError and is left out, the others print.
func TestChunksHeldWithinBudget(t *testing.T) {
	sources := fixtureSources()
	f := NewPrintFlags()
	f.List = true
	pr, err := f.ToPrinter(&bytes.Buffer{}, &bytes.Buffer{}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	hp := pr.(*HumanPrinter)
	var out bytes.Buffer
	if _, err := hp.PrintChunk(Sources{Lists: sources[:1]}, &out); err != nil {
		t.Fatal(err)
	}
	// Room for node-1's rows and a byte.
	budget := &testBudget{total: hp.heldBytes + 1, used: hp.heldBytes}
	hp.Budget = budget
	if out.Len() != 0 {
		t.Errorf("a chunk printed before all were taken:\n%s", out.String())
	}
	var he *HeldError
	if _, err := hp.PrintChunk(Sources{Lists: sources[1:]}, &out); !errors.As(err, &he) || he.Budget != budget.String() {
		t.Fatalf("the chunk past the budget: err %v, want a HeldError", err)
	}
	if err := hp.PrintRest(Sources{Lists: sources[:1]}, &out); err != nil {
		t.Fatal(err)
	}
	if budget.used != 0 {
		t.Errorf("%d bytes still charged once the rows printed, want 0", budget.used)
	}
	if got := out.String(); !strings.Contains(got, "node-1") || strings.Contains(got, "node-2") {
		t.Errorf("want node-1's rows and not node-2's:\n%s", got)
	}
}
