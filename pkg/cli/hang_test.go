package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// hangingCluster serves, through a fake API server's node proxy, one node
// per step at which a node can hang: its agent's address takes no
// connection (dial), it takes the request and sends no headers (headers),
// sends the headers and part of the answer (body), or answers everything
// but falls silent on its event stream after the opening heartbeat
// (mid-stream). It returns the kubeconfig and the blackhole's URL, for
// --agent-url.
func hangingCluster(t *testing.T) (kubeconfigPath, blackholeURL string) {
	t.Helper()
	bh, err := fakeagent.NewBlackhole()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bh.Close)
	agents := map[string]string{"dial": "http://" + bh.Addr}
	serve := func(node string, change func(*fakeagent.Agent)) {
		fa := fakeagent.New(node)
		change(fa)
		agents[node] = serveUntilCleanup(t, fa)
	}
	serve("headers", func(fa *fakeagent.Agent) { fa.Hold = make(chan struct{}) })
	serve("body", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultStall })
	serve("mid-stream", func(fa *fakeagent.Agent) {
		fa.Fault = fakeagent.FaultMute
		// A history to read, so that why reads a stream past its opening.
		fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: "file", Pods: []v1alpha1.PodRef{{Name: "web", Namespace: "default"}}})
	})
	api := &fakeAPIServer{agents: agents, nodes: []string{"dial", "headers", "body", "mid-stream"}}
	return kubeconfig(t, serveUntilCleanup(t, api)), "http://" + bh.Addr
}

// TestEveryCommandIsBounded runs every command that asks agents against a
// node that hangs at each step: each must end, with exit status 1, within
// its bound and a second, and say which node did not answer and which flag
// to raise. Commands that read no stream answer the mid-stream node.
func TestEveryCommandIsBounded(t *testing.T) {
	t.Parallel()
	kc, blackhole := hangingCluster(t)
	const nodeTimeout = 2 * time.Second
	// watch's streams are bounded by --idle-timeout once they answered.
	const idleTimeout = 10 * time.Second
	commands := []struct {
		name string
		args []string
		// streams says the command reads the event stream, so that the
		// mid-stream node hangs it.
		streams bool
	}{
		{"sources", nil, false},
		{"pods", nil, false},
		{"pod", []string{"default/web"}, false},
		{"pleg", nil, false},
		{"events", nil, true},
		{"watch", nil, true},
		{"why", []string{"default/web"}, true},
		{"version", nil, false},
	}
	steps := []struct {
		step string
		// node is the node argument; direct is the --agent-url instead.
		node, direct string
	}{
		{step: "dial", node: "dial"},
		{step: "dial (agent-url)", direct: blackhole},
		{step: "headers", node: "headers"},
		{step: "body", node: "body"},
		{step: "mid-stream", node: "mid-stream"},
	}
	for _, c := range commands {
		for _, s := range steps {
			if s.step == "mid-stream" && !c.streams {
				continue
			}
			bound, flag := nodeTimeout, "--node-timeout"
			args := []string{c.name}
			if s.node != "" {
				args = append(args, s.node)
			}
			args = append(args, c.args...)
			if s.direct != "" {
				args = append(args, "--agent-url", s.direct)
			} else {
				args = append(args, "--kubeconfig", kc)
			}
			args = append(args, "--node-timeout", nodeTimeout.String(), "--request-timeout", "1m")
			if c.name == "watch" {
				args = append(args, "--idle-timeout", idleTimeout.String(), "--max-reconnects=0")
				if s.step == "mid-stream" {
					bound, flag = idleTimeout, "--idle-timeout"
				}
			}
			t.Run(c.name+"/"+s.step, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				stdout, stderr, done := startExit(context.Background(), args...)
				var code int
				select {
				case code = <-done:
				case <-time.After(bound + 30*time.Second):
					t.Fatalf("%v did not end; stdout:\n%s\nstderr:\n%s", args, stdout, stderr)
				}
				took := time.Since(start)
				errOut := stderr.String()
				t.Logf("%v: exit %d after %s; stderr:\n%s", args, code, took.Round(time.Millisecond), errOut)
				if took > bound+time.Second {
					t.Errorf("ended after %s, want within %s and a second", took.Round(time.Millisecond), bound)
				}
				if code != 1 {
					t.Errorf("exit %d, want 1", code)
				}
				name := s.node
				if s.direct != "" {
					name = strings.TrimPrefix(s.direct, "http://")
				}
				if !strings.Contains(errOut, name) {
					t.Errorf("stderr does not name %s:\n%s", name, errOut)
				}
				if !strings.Contains(errOut, flag) {
					t.Errorf("stderr does not say to raise %s:\n%s", flag, errOut)
				}
			})
		}
	}
}

// TestWatchFollowsOthersPastAHungNode: watch says within --node-timeout
// that a node sends nothing, naming it, and goes on printing the events of
// the node that answers.
func TestWatchFollowsOthersPastAHungNode(t *testing.T) {
	t.Parallel()
	good, u := newAgent(t, "node-1")
	hung := fakeagent.New("hung")
	hung.Hold = make(chan struct{})
	api := &fakeAPIServer{agents: map[string]string{"node-1": u, "hung": serveUntilCleanup(t, hung)}, nodes: []string{"node-1", "hung"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	out, errOut, done := startCommand(ctx, "watch", "node-1", "hung", "--kubeconfig", kubeconfig(t, serveUntilCleanup(t, api)), "--node-timeout=2s")
	awaitOutput(t, errOut, out, func(stderr string) bool {
		return strings.Contains(stderr, `error: node "hung": the agent did not answer within --node-timeout=2s`)
	})
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the hung node was reported after %s, want within the node timeout and a second", took.Round(time.Millisecond))
	}
	good.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: "file", Pods: []v1alpha1.PodRef{{Name: "after", Namespace: "ns"}}})
	awaitOutput(t, out, errOut, func(stdout string) bool { return strings.Contains(stdout, "ns/after") })
	cancel()
	if err := <-done; !errors.Is(err, errFailed) {
		t.Fatalf("watch: %v, want the failure of the hung node", err)
	}
}
