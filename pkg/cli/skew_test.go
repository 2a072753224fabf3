package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// otherRelease is an agent release no build of this plugin has.
const otherRelease = "v9.9.0"

// agentsOf serves a fake agent of the given release for each node, behind a
// fake API server whose nodes run kubelet, and returns the agents and the
// API server's address.
func agentsOf(t *testing.T, release, kubelet string, nodes ...string) ([]*fakeagent.Agent, string) {
	t.Helper()
	api := &fakeAPIServer{agents: map[string]string{}, nodes: nodes, kubelet: kubelet}
	var agents []*fakeagent.Agent
	for _, n := range nodes {
		fa, u := newAgent(t, n)
		fa.Lock()
		fa.Version.AgentVersion, fa.Sources.AgentVersion = release, release
		fa.Unlock()
		api.agents[n] = u
		agents = append(agents, fa)
	}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return agents, srv.URL
}

// streaming returns a condition that holds once every agent has served a
// stream since streaming was called: a watch has then checked every node.
func streaming(agents []*fakeagent.Agent) func(string) bool {
	for _, fa := range agents {
		for drained := false; !drained; {
			select {
			case <-fa.StreamStarted():
			default:
				drained = true
			}
		}
	}
	started := make([]bool, len(agents))
	return func(string) bool {
		all := true
		for i, fa := range agents {
			select {
			case <-fa.StreamStarted():
				started[i] = true
			default:
			}
			all = all && started[i]
		}
		return all
	}
}

// runUntil runs kubectl podsrc with args until it ends, or until done(stderr)
// holds, when it cancels it (watch runs until it is stopped); it returns
// stdout, stderr and the error.
func runUntil(t *testing.T, done func(stderr string) bool, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, finished := startCommand(ctx, args...)
	deadline := time.After(20 * time.Second)
	for !done(errOut.String()) {
		select {
		case err := <-finished:
			return out.String(), errOut.String(), err
		case <-deadline:
			t.Fatalf("%v: stderr so far %q", args, errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	err := <-finished
	return out.String(), errOut.String(), err
}

// TestSkewWarnedOnceByEveryCommand runs every command that reaches agents
// against two agents of another release on nodes whose kubelet is of
// another minor version: each warns on stderr, once per kind of skew,
// naming both nodes; with matching versions none warns.
func TestSkewWarnedOnceByEveryCommand(t *testing.T) {
	skewedAgents, skewed := agentsOf(t, otherRelease, "v1.35.1", "node-1", "node-2")
	matchingAgents, matching := agentsOf(t, version.Version, "v1.36.0", "node-1", "node-2")
	release := "Warning: kubectl-podsrc " + version.Version + " and the agents on nodes node-1 and node-2 (" + otherRelease + ") are different releases; run kubectl podsrc deploy"
	kubelet := "Warning: nodes node-1 and node-2 run kubelet v1.35.1, but their agents reproduce kubelet v1.36.3"
	warned := func(s string) bool { return strings.Contains(s, release) && strings.Contains(s, kubelet) }
	never := func(string) bool { return false }

	for _, command := range []string{"sources", "pods", "pleg", "version", "watch"} {
		for _, sel := range [][]string{{"node-1", "node-2"}, {"--all-nodes"}} {
			for _, via := range []string{"node-proxy", "pod-proxy"} {
				t.Run(command+"/"+strings.Join(sel, ",")+"/"+via, func(t *testing.T) {
					args := func(server string) []string {
						return append(append([]string{command}, sel...), "--via", via, "--kubeconfig", kubeconfig(t, server))
					}
					stop := never
					if command == "watch" {
						open := streaming(skewedAgents)
						stop = func(s string) bool { return open(s) && warned(s) }
					}
					_, errOut, err := runUntil(t, stop, args(skewed)...)
					if err != nil || !warned(errOut) {
						t.Fatalf("error %v, stderr %q; want\n%s\n%s", err, errOut, release, kubelet)
					}
					if n := strings.Count(errOut, "Warning:"); n != 2 {
						t.Fatalf("%d warnings, want 2 (one per kind of skew):\n%s", n, errOut)
					}
					if command == "watch" {
						stop = streaming(matchingAgents)
					}
					_, errOut, err = runUntil(t, stop, args(matching)...)
					if err != nil || strings.Contains(errOut, "Warning:") {
						t.Fatalf("matching versions: error %v, stderr %q", err, errOut)
					}
				})
			}
		}
	}
}

func TestSkewWarnings(t *testing.T) {
	agent := func(release, served string) *v1alpha1.Version {
		return &v1alpha1.Version{AgentVersion: release, ServedVersion: served, ReproducedKubeletVersion: "v1.36.3"}
	}
	same := version.Version
	tests := []struct {
		name  string
		found []NodeVersion
		want  []string
	}{
		{name: "no skew", found: []NodeVersion{{Node: "a", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.36.9"}}},
		{name: "no agent answer", found: []NodeVersion{{Node: "a", NodeKubeletVersion: "v1.30.0"}}},
		{name: "kubelet unknown", found: []NodeVersion{{Node: "a", Agent: agent(same, "v1alpha1")}}},
		{
			name:  "one node of another release",
			found: []NodeVersion{{Node: "a", Agent: agent(otherRelease, "v1alpha1")}},
			want:  []string{"kubectl-podsrc " + same + " and the agent on node a (" + otherRelease + ") are different releases; run kubectl podsrc deploy to run this release's agent, or install kubectl-podsrc " + otherRelease},
		},
		{
			name:  "another API version",
			found: []NodeVersion{{Node: "a", Agent: agent(same, "v1beta1")}},
			want:  []string{"the agent on node a serves podsrc.io/v1beta1, this kubectl-podsrc speaks podsrc.io/v1alpha1"},
		},
		{
			name: "nodes grouped by versions, sorted, many counted",
			found: []NodeVersion{
				{Node: "g", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "b", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "f", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "a", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "c", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "d", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.35.0"},
				{Node: "e", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.38.1"},
				{Node: "h", Agent: agent(same, "v1alpha1"), NodeKubeletVersion: "v1.36.0"},
			},
			want: []string{
				"nodes a, b, c, d, f and 1 more run kubelet v1.35.0, but their agents reproduce kubelet v1.36.3: what podsrc shows may differ from what this kubelet does; run kubectl podsrc deploy, which gives each node the agent of its kubelet's minor",
				"node e runs kubelet v1.38.1, but its agent reproduces kubelet v1.36.3: what podsrc shows may differ from what this kubelet does; podsrc reproduces kubelet v1.33 to v1.37 only",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := skewWarnings(tt.found)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestSkewCheckStopsReadingNodesWhenForbidden checks that a caller who may
// not read nodes (--via=pod-proxy's role) is asked once, not once per
// node, and still gets the agents' skew.
func TestSkewCheckStopsReadingNodesWhenForbidden(t *testing.T) {
	cs := fake.NewClientset()
	var gets atomic.Int32
	cs.PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets.Add(1)
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "node-1", nil)
	})
	direct := agentURLs(t, 3)
	var errOut syncbuf.Buffer
	check := newSkewCheck(&errOut, len(direct), cs.CoreV1().Nodes(), nil)
	for i, agentURL := range direct {
		conn := &client.Connector{Via: client.ViaDirect, AgentURL: agentURL}
		a, err := conn.Agent("node-" + string(rune('1'+i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := check.check(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	if n := gets.Load(); n != 1 {
		t.Fatalf("%d node reads, want 1: a forbidden read is not repeated", n)
	}
	if !strings.Contains(errOut.String(), "the agents on nodes node-1, node-2 and node-3 ("+otherRelease+") are different releases") || strings.Contains(errOut.String(), "kubelet") {
		t.Fatalf("stderr %q, want the agents' skew only", errOut.String())
	}
}

// TestSkewFromTheAgentsOwnNode checks that a caller who may not read nodes
// is still warned about a kubelet of another minor than its agent's, from
// the kubelet version the agent read from its own Node.
func TestSkewFromTheAgentsOwnNode(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "node-1", nil)
	})
	fa, agentURL := newAgent(t, "node-1")
	fa.Lock()
	fa.Version.AgentVersion, fa.Version.NodeKubeletVersion = version.Version, "v1.34.4"
	fa.Unlock()
	var errOut syncbuf.Buffer
	check := newSkewCheck(&errOut, 1, cs.CoreV1().Nodes(), nil)
	a, err := (&client.Connector{Via: client.ViaDirect, AgentURL: agentURL}).Agent("node-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.check(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	want := "Warning: node node-1 runs kubelet v1.34.4, but its agent reproduces kubelet v1.36.3: what podsrc shows may differ from what this kubelet does; run kubectl podsrc deploy"
	if !strings.Contains(errOut.String(), want) {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
}

// agentURLs serves n fake agents of another release and returns their URLs.
func agentURLs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		fa, u := newAgent(t, "node-"+string(rune('1'+i)))
		fa.Lock()
		fa.Version.AgentVersion = otherRelease
		fa.Unlock()
		out = append(out, u)
	}
	return out
}
