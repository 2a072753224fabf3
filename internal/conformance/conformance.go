// Package conformance locates the kubelet conformance traces that podsrc
// replays in its tests.
package conformance

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// EnvDir names the environment variable that points the conformance tests at
// another trace directory. It holds the subfolders merge/, staticpod/, pleg/
// and admission/.
const EnvDir = "PODSRC_CONFORMANCE_DIR"

// Dir returns the trace directory for one subfolder: $PODSRC_CONFORMANCE_DIR/sub
// when the variable is set, the repository's testdata/conformance/sub otherwise.
func Dir(sub string) string {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Join(d, sub)
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "conformance", sub)
}

// Files returns the sorted JSON traces of one subfolder. The test fails when
// there are none, so that a mistyped directory never passes silently.
func Files(t testing.TB, sub string) []string {
	t.Helper()
	dir := Dir(sub)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatalf("listing traces in %s: %v", dir, err)
	}
	if len(files) == 0 {
		t.Fatalf("no conformance traces in %s (set %s to a directory with %s/*.json)", dir, EnvDir, sub)
	}
	sort.Strings(files)
	return files
}
