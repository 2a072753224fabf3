package printers

import "testing"

// TestEveryColumnSaysWhatItShows checks that every column of every table
// the docs' column reference lists has a one-line meaning, and that no
// table has a header twice.
func TestEveryColumnSaysWhatItShows(t *testing.T) {
	for _, table := range TableReferences() {
		headers := map[string]bool{}
		for _, c := range table.Columns {
			if c.Help == "" {
				t.Errorf("%v: column %s says nothing of what it shows (Column.Help)", table.Commands, c.Header)
			}
			if headers[c.Header] {
				t.Errorf("%v: header %s twice", table.Commands, c.Header)
			}
			headers[c.Header] = true
		}
	}
}
