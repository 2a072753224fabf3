package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2/ktesting"

	"github.com/podsrc/podsrc/internal/sourcetest"
)

// TestFileSourceLogsEscapeNames lists a static pod path whose entries are
// named to forge log lines and steer a terminal (a directory, a dangling
// symlink, a FIFO): every log line names them escaped, on one line.
func TestFileSourceLogsEscapeNames(t *testing.T) {
	dir := t.TempDir()
	const forged = "I1128 00:00:00.000000 1 forged.go:1] \"all is well\""
	name := func(kind string) string { return kind + "\n" + forged + "\x1b]0;pwned\a\x1b[2J.yaml" }
	if err := os.Mkdir(filepath.Join(dir, name("dir")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, name("link"))); err != nil {
		t.Fatal(err)
	}
	c := sourcetest.NewCollector(t)
	src, err := NewFile(FileOptions{Path: dir, NodeName: testNode, Decoder: fakeDecoder{}, Updates: c.Updates})
	if err != nil {
		t.Fatal(err)
	}
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
	if _, err := src.readDir(context.Background(), logger); err != nil {
		t.Fatal(err)
	}
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	for _, kind := range []string{"dir", "link"} {
		if !strings.Contains(logs, "/"+kind+`\`) {
			t.Errorf("the log does not name the %s, escaped:\n%s", kind, logs)
		}
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "I1128") || strings.ContainsAny(line, "\x1b\a") {
			t.Errorf("a file name forged a log line or wrote a control: %q", line)
		}
	}
}
