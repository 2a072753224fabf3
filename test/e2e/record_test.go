package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/archive"
)

// testRecordOffline records the node with kubectl podsrc record and checks
// that the archive, read with --from and no cluster, prints what the agent
// prints live: the same events up to the archive's last, byte for byte,
// and the same sources and pods, recorded again while the node changed
// between the recording and the live answer.
func testRecordOffline(t *testing.T, e *env) {
	c := e.c
	kc := "--kubeconfig=" + c.Kubeconfig
	file := filepath.Join(t.TempDir(), c.NodeName+".tar.gz")
	// stdout runs the plugin with args and returns what it printed on
	// stdout; offline, with no kubeconfig at all.
	stdout := func(offline bool, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, e.plugin, args...)
		cmd.Env = os.Environ()
		if offline {
			cmd.Env = append(cmd.Env, "KUBECONFIG="+filepath.Join(t.TempDir(), "none"))
		}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl-podsrc %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}
	record := func() *archive.Archive {
		t.Helper()
		out := stdout(false, "record", c.NodeName, "-o", file, kc)
		if !strings.Contains(out, "recorded node "+c.NodeName) {
			t.Fatalf("record says:\n%s", out)
		}
		a, err := archive.ReadFile(file, 0)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := record()
	if a.Node == nil || a.Node.Name != c.NodeName || a.KubeletConfig == nil || len(a.PodDetails.Items) == 0 {
		t.Errorf("the archive lacks the Node, the kubelet configuration or the pods' details: %+v", a.Manifest)
	}
	until := "--until=" + strconv.FormatUint(a.Manifest.Events.Until, 10)
	for _, args := range [][]string{{"events", until, "-o", "json"}, {"events", until, "--kind=config"}} {
		live := stdout(false, append(append([]string{args[0], c.NodeName}, args[1:]...), kc)...)
		offline := stdout(true, append(args, "--from", file)...)
		if live != offline {
			t.Errorf("%v: --from prints otherwise than live:\nlive:\n%s\noffline:\n%s", args, live, offline)
		}
	}
	for _, args := range [][]string{{"sources", "-o", "json"}, {"pods", "-A", "-o", "json"}} {
		var live, offline string
		for range 3 {
			live = stdout(false, append(append([]string{args[0], c.NodeName}, args[1:]...), kc)...)
			offline = stdout(true, append(args, "--from", file)...)
			if live == offline {
				break
			}
			// The node changed between the recording and the live answer.
			record()
		}
		if live != offline {
			t.Errorf("%v: --from prints otherwise than live, three times:\nlive:\n%s\noffline:\n%s", args, live, offline)
		}
	}
}
