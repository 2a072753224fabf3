package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// testEvent is one line of `go test -json` (see `go doc test2json`).
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
}

// failures collects what failed in one or more `go test -json` runs: a test
// as "package TestName", a package that failed outside any test (a build
// error, a panic, a timeout) as "package (package)".
type failures map[string]int

// add counts one failure.
func (f failures) add(name string) { f[name]++ }

// sorted returns the failures, most frequent first.
func (f failures) sorted() []string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if f[names[i]] != f[names[j]] {
			return f[names[i]] > f[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}

// readTestJSON copies the human output of a `go test -json` stream to out
// and returns what failed in it. A line that is not JSON (go's own errors
// before any test runs) is copied as it is.
func readTestJSON(r io.Reader, out io.Writer) (failures, error) {
	failed := failures{}
	// A package whose tests failed also ends in "fail"; count it only when
	// none of its tests did.
	testFailed := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev testEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		if ev.Output != "" {
			io.WriteString(out, ev.Output)
		}
		if ev.Action != "fail" {
			continue
		}
		switch {
		case ev.Test != "":
			// A failed subtest fails its parents too; name the leaf.
			if !testFailed[ev.Package+" "+ev.Test+"/"] {
				failed.add(ev.Package + " " + ev.Test)
			}
			for parent := ev.Test; strings.Contains(parent, "/"); {
				parent = parent[:strings.LastIndex(parent, "/")]
				testFailed[ev.Package+" "+parent+"/"] = true
			}
			testFailed[ev.Package] = true
		case ev.Package != "" && !testFailed[ev.Package]:
			failed.add(ev.Package + " (package)")
		case ev.Package == "" && ev.FailedBuild != "":
			failed.add(ev.FailedBuild + " (build)")
		}
	}
	return failed, sc.Err()
}
