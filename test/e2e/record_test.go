package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/replay"
	"github.com/podsrc/podsrc/test/cluster"
)

// testRecordOffline records the node with kubectl podsrc record and checks
// that the archive, read with --from and no cluster, prints what the agent
// prints live: the same events up to the archive's last, byte for byte but
// for the time a gap was reported, and the same sources and pods, recorded
// again while the node changed between the recording and the live answer.
// The node runs pods with secrets planted where the agent does not serve
// them by default (plantRecordSecrets): none is in any byte of the
// archive.
func testRecordOffline(t *testing.T, e *env) {
	secrets := plantRecordSecrets(t, e)
	file := checkRecordOffline(t, e.c, e.plugin, e.c.NodeName)
	checkNoSecret(t, file, secrets)
}

// checkRecordOffline is testRecordOffline of the named node of c, with the
// plugin at plugin; it returns the archive's file, as last recorded.
func checkRecordOffline(t *testing.T, c *cluster.Cluster, plugin, node string) string {
	kc := "--kubeconfig=" + c.Kubeconfig
	file := filepath.Join(t.TempDir(), node+".tar.gz")
	// stdout runs the plugin with args and returns what it printed on
	// stdout; offline, with no kubeconfig at all.
	stdout := func(offline bool, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, plugin, args...)
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
		out := stdout(false, "record", node, "-o", file, kc)
		if !strings.Contains(out, "recorded node "+node) {
			t.Fatalf("record says:\n%s", out)
		}
		a, err := archive.ReadFile(file, 0)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := record()
	if a.Node == nil || a.Node.Name != node || a.KubeletConfig == nil || len(a.PodDetails.Items) == 0 {
		t.Errorf("the archive lacks the Node, the kubelet configuration or the pods' details: %+v", a.Manifest)
	}
	checkReplay(t, file, a)
	until := "--until=" + strconv.FormatUint(a.Manifest.Events.Until, 10)
	for _, args := range [][]string{{"events", until, "-o", "json"}, {"events", until, "--kind=config"}} {
		live := gapTimesOut(t, stdout(false, append(append([]string{args[0], node}, args[1:]...), kc)...))
		offline := gapTimesOut(t, stdout(true, append(args, "--from", file)...))
		if live != offline {
			t.Errorf("%v: --from prints otherwise than live:\nlive:\n%s\noffline:\n%s", args, live, offline)
		}
	}
	for _, args := range [][]string{{"sources", "-o", "json"}, {"pods", "-A", "-o", "json"}} {
		var live, offline string
		for range 3 {
			live = stdout(false, append(append([]string{args[0], node}, args[1:]...), kc)...)
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
	return file
}

// gapTimesOut returns events' output with each gap message's time left
// out: from -o json's List, and from the table's gap rows (TIME first, KIND
// third). A gap's time is when the agent reported it, which a reading of the
// archive later does not repeat.
func gapTimesOut(t *testing.T, out string) string {
	t.Helper()
	var l map[string]any
	if json.Unmarshal([]byte(out), &l) != nil {
		lines := strings.Split(out, "\n")
		for i, line := range lines {
			if f := strings.Fields(line); len(f) > 2 && f[2] == v1alpha1.MessageGap {
				lines[i] = strings.Replace(line, f[0], strings.Repeat("-", len(f[0])), 1)
			}
		}
		return strings.Join(lines, "\n")
	}
	items, _ := l["items"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == v1alpha1.MessageGap {
			delete(m, "time")
		}
	}
	b, err := json.MarshalIndent(l, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkReplay replays the archive at file (a, read) with the podsrc-agent
// of the kubelet minor that recorded it, built from this tree: it must
// replay at least one agent process and find no difference.
func checkReplay(t *testing.T, file string, a *archive.Archive) {
	t.Helper()
	minor, err := kubeletminor.Parse(a.Version.ReproducedKubeletVersion)
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(t.TempDir(), "podsrc-agent")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", agent, ".")
	build.Dir = filepath.Join(repoRoot(t), "cmd", "podsrc-agent", fmt.Sprintf("kubelet1%d", int(minor)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the agent for kubelet %s: %v\n%s", minor, err, out)
	}
	ctx, cancel = context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, agent, "replay", file, "-o", "json")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	var r replay.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("podsrc-agent replay %s: %v, %v\n%s%s", file, runErr, err, out.String(), errOut.String())
	}
	replayed := 0
	for _, p := range r.Processes {
		if p.NotReplayed == "" {
			replayed++
		}
	}
	if runErr != nil || r.Differences() != 0 || replayed == 0 {
		t.Fatalf("podsrc-agent replay %s (kubelet %s): %v, %d differences, %d of %d agent processes replayed:\n%s%s",
			file, minor, runErr, r.Differences(), replayed, len(r.Processes), out.String(), errOut.String())
	}
	t.Logf("replayed %s through kubelet %s: %+v", file, minor, r.Processes)
}
