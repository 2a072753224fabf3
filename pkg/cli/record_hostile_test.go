package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestHostileRecord records each hostile agent: one that fails fails the
// command within its bound, with its node's error escaped and no file
// written; what the answering one sent is recorded as it is, and printed
// from the archive escaped.
func TestHostileRecord(t *testing.T) {
	t.Parallel()
	kc, nodes := hostileCluster(t)
	const timeout = 5 * time.Second
	want := hostileErrors(timeout)
	want["endless-line"] = "a stream message longer than 8 MiB"
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
