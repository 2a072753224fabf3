package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/archive"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestHostileRecord records each hostile agent: one that fails, or that
// names another node than the one asked for, fails the command within its
// bound, with its node's error escaped and no file written; what the one
// that answers under its node's name sent is recorded as it is, and
// printed from the archive escaped.
func TestHostileRecord(t *testing.T) {
	t.Parallel()
	kc, nodes := hostileCluster(t)
	const timeout = 5 * time.Second
	want := hostileErrors(timeout)
	want["endless-line"] = "a stream message longer than 8 MiB"
	want["answers"] = `the agent of node "answers" names node "\x1b]0;pwned\a`
	for _, node := range nodes {
		t.Run(node, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), node+".tar.gz")
			stdout, stderr, done := startExit(context.Background(), "record", node, "-o", file, "--kubeconfig", kc, "--request-timeout", timeout.String())
			var code int
			select {
			case code = <-done:
			case <-time.After(timeout + 20*time.Second):
				t.Fatalf("no end within %s; stderr:\n%s", timeout+20*time.Second, stderr)
			}
			if bad := fakeagent.RawControls(stdout.String()+stderr.String(), false); len(bad) > 0 {
				t.Errorf("output has raw control characters %v:\n%s%s", bad, stdout, stderr)
			}
			w, fails := want[node]
			if !fails {
				if code != 0 {
					t.Fatalf("exit %d, stderr:\n%s", code, stderr)
				}
				if a, err := archive.ReadFile(file, 0); err != nil || a.Manifest.NodeName != node || a.Version.NodeName != node {
					t.Errorf("the archive: %v, want it to record node %q", err, node)
				}
				out, errOut, err := run(t, context.Background(), "sources", "--from", file, "-o", "wide")
				if err != nil || !strings.Contains(out, `\x1b]0;pwned\a`) {
					t.Errorf("sources --from: %v, stdout:\n%s\nstderr:\n%s\nwant the agent's strings escaped", err, out, errOut)
				}
				return
			}
			if code != 1 || !strings.Contains(stderr.String(), w) || !strings.Contains(stderr.String(), node) {
				t.Errorf("exit %d, stderr:\n%s\nwant 1 and an error of node %s with %q", code, stderr, node, w)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("a failed record left %s: %v", file, err)
			}
		})
	}
}

// TestFromBadArchive: an archive that does not read, or does not fit the
// command line, fails the command with an error that names the file and
// the member at fault.
func TestFromBadArchive(t *testing.T) {
	_, u := newAgent(t, "node-1")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.tar.gz")
	if _, errOut, err := run(t, context.Background(), "--agent-url", u, "record", "-o", good); err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.tar.gz", data[:len(data)-40])
	notGzip := write("not-gzip.tar.gz", []byte("\x1b]0;pwned\a"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not gzip", []string{"sources", "--from", notGzip}, `archive "` + notGzip + `": not a gzip-compressed archive`},
		{"truncated", []string{"events", "--from", truncated}, `archive "` + truncated + `"`},
		{"missing", []string{"pods", "--from", filepath.Join(dir, "none.tar.gz")}, "--from: open " + filepath.Join(dir, "none.tar.gz")},
		{"over --max-bytes", []string{"pods", "--from", good, "--max-bytes", "100"}, `member "manifest.json": is `},
		{"another node", []string{"pods", "node-2", "--from", good}, `recorded node "node-1", not "node-2"`},
		{"with --agent-url", []string{"pods", "--from", good, "--agent-url", u}, "give one of them"},
		{"with --all-nodes", []string{"pods", "--from", good, "--all-nodes"}, "--from reads the archive of one node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, done := startExit(context.Background(), tc.args...)
			var code int
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("no end; stderr:\n%s", stderr)
			}
			if code != 1 || !strings.Contains(stderr.String(), tc.want) || stdout.String() != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant 1, nothing on stdout, an error with %q", code, stdout, stderr, tc.want)
			}
			if bad := fakeagent.RawControls(stderr.String(), false); len(bad) > 0 {
				t.Errorf("stderr has raw control characters %v:\n%s", bad, stderr)
			}
		})
	}
}
