package cli

import (
	"context"
	"strings"
	"testing"
)

// TestWatchSaysADeadNodesLastError: watch against a node whose agent the
// API server cannot reach ends, after --node-timeout, with the last real
// error (connection refused), not only that it did not answer.
func TestWatchSaysADeadNodesLastError(t *testing.T) {
	t.Parallel()
	_, u := newAgent(t, "node-1")
	api := &fakeAPIServer{agents: map[string]string{"node-1": u}, nodes: []string{"node-1", "dead"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, _ := startCommand(ctx, "watch", "dead", "--kubeconfig", kubeconfig(t, serveUntilCleanup(t, api)), "--node-timeout=2s")
	awaitOutput(t, errOut, out, func(stderr string) bool {
		return strings.Contains(stderr, `error: node "dead": `)
	})
	line := errorLine(errOut.String(), "dead")
	for _, want := range []string{"did not answer within --node-timeout=2s", "connection refused"} {
		if !strings.Contains(line, want) {
			t.Errorf("the error lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(line, "/proxy") || strings.Contains(line, "http://") {
		t.Errorf("the error names a raw URL:\n%s", line)
	}
}
