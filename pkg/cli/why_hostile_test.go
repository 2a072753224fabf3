package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestHostileWhy runs why against each hostile agent: the answering one
// (and the one whose stream never ends a line, which only costs why its
// history) gets a report, for --all with the agent's strings escaped, and
// the exit status of a verdict; every other fails with exit 1 and its error
// escaped; nothing raw reaches the terminal and every run ends within its
// bound.
func TestHostileWhy(t *testing.T) {
	// Not parallel with TestHostileAgents: both push endless answers
	// through a proxy, and watch's 1s idle bound there must not feel ours.
	kc, nodes := hostileCluster(t)
	const timeout = 5 * time.Second
	wantErrors := hostileErrors(timeout)
	// The agent of answers names its node Payload.
	wantErrors["answers"] = `the agent of node answers says it runs for node "\x1b]0;pwned\a`
	// Every pod of a hostile agent is named Payload: --all reports them.
	variants := [][]string{{"--all", "-o", "wide"}, {"--all", "-o", "json"}, {"--all", "-o", "yaml"}, {"default/web"}, {"/etc/kubernetes/manifests/web.yaml", "-o", "json"}}
	for _, node := range nodes {
		for i, extra := range variants {
			if _, fails := wantErrors[node]; fails && i > 0 && (node == "stall" || node == "endless") {
				// The bounds are the command's, not the format's.
				continue
			}
			args := append([]string{"why", node}, extra...)
			args = append(args, "--kubeconfig", kc, "--request-timeout", timeout.String())
			t.Run(node+" "+strings.Join(extra, " "), func(t *testing.T) {
				t.Parallel()
				stdout, stderr, done := startExit(context.Background(), args...)
				var code int
				select {
				case code = <-done:
				case <-time.After(timeout + 20*time.Second):
					t.Fatalf("no end within %s; stdout:\n%s\nstderr:\n%s", timeout+20*time.Second, stdout, stderr)
				}
				out, errOut := stdout.String(), stderr.String()
				if bad := fakeagent.RawControls(out, strings.Contains(escapedPayload(extra), `\e`)); len(bad) > 0 {
					t.Errorf("stdout has raw control characters %v:\n%s", bad, out)
				}
				if bad := fakeagent.RawControls(errOut, false); len(bad) > 0 {
					t.Errorf("stderr has raw control characters %v:\n%s", bad, errOut)
				}
				if want, fails := wantErrors[node]; fails {
					if code != 1 || !strings.Contains(errOut, want) {
						t.Errorf("exit %d, stderr %q; want 1 and an error with %q", code, errOut, want)
					}
					return
				}
				if code != ExitFailing && code != ExitUnknown {
					t.Errorf("exit %d, want the status of a verdict; stderr:\n%s", code, errOut)
				}
				if want := escapedPayload(extra); extra[0] == "--all" && !strings.Contains(out, want) {
					t.Errorf("stdout lacks the agent's strings escaped as %q:\n%s", want, out)
				}
			})
		}
	}
}
