package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestInterruptedNodesSayIt: Ctrl-C while a node's agent has not answered
// ends each command with one sentence for that node, with neither the
// request's URL nor "context canceled".
func TestInterruptedNodesSayIt(t *testing.T) {
	for _, args := range [][]string{{"pods", "node-1", "hung"}, {"events", "node-1", "hung"}, {"sources", "hung"}, {"why", "hung", "--all"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, u := newAgent(t, "node-1")
			hung := fakeagent.New("hung")
			hung.Hold = make(chan struct{})
			asked := make(chan struct{}, 100)
			hungURL := serveUntilCleanup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked <- struct{}{}
				hung.ServeHTTP(w, r)
			}))
			api := &fakeAPIServer{agents: map[string]string{"node-1": u, "hung": hungURL}, nodes: []string{"node-1", "hung"}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, errOut, done := startCommand(ctx, append(args, "--kubeconfig", kubeconfig(t, serveUntilCleanup(t, api)), "--node-timeout=0")...)
			<-asked
			cancel()
			err := <-done
			text := errOut.String()
			if err != nil {
				text += "\n" + err.Error()
			}
			if !strings.Contains(text, `node "hung": interrupted before the agent answered`) {
				t.Errorf("no sentence says node hung was interrupted:\n%s", text)
			}
			for _, bad := range []string{"http://", "/proxy", "context canceled"} {
				if strings.Contains(text, bad) {
					t.Errorf("the errors have %q:\n%s", bad, text)
				}
			}
		})
	}
}
