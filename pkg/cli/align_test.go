package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestGoldenSourcesLateWideNode: a one-shot table aligns every row to the
// widest cell, whichever node answered last, as kubectl get does: the
// node that answers last has the widest NODE and TARGET, and every
// column of every row starts under its header.
func TestGoldenSourcesLateWideNode(t *testing.T) {
	agents := map[string]string{}
	nodes := []string{"node-1", "node-2-with-a-much-longer-name"}
	for _, node := range nodes {
		fa, u := newAgent(t, node)
		if node != "node-1" {
			fa.Sources.Items = []v1alpha1.Source{{Name: "http", Target: "http://config.example/a/much/longer/static/pod/url", Seen: true, Pods: 12}}
		}
		agents[node] = u
	}
	srv := httptest.NewServer(&fakeAPIServer{agents: agents, nodes: nodes})
	t.Cleanup(srv.Close)
	// One node at a time, in order: the wide node answers last.
	out, errOut, err := run(t, context.Background(), "sources", "--all-nodes", "--kubeconfig", kubeconfig(t, srv.URL), "--max-concurrency=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, header := range []string{"SOURCE", "TARGET", "SEEN", "READY", "PODS", "LAST UPDATE", "ERRORS"} {
		at := strings.Index(lines[0], header)
		for _, l := range lines[1:] {
			if len(l) <= at || l[at-1] != ' ' || l[at] == ' ' {
				t.Errorf("%s does not start at column %d in %q", header, at, l)
			}
		}
	}
	golden.Check(t, "sources-late-wide-node.txt", []byte(out))
}

// TestNoResourcesFound: a filter that matches nothing says so on stderr,
// in kubectl get's words, with where it looked; stdout stays empty.
func TestNoResourcesFound(t *testing.T) {
	_, u := newAgent(t, "node-1")
	srv := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u}, nodes: []string{"node-1"}})
	t.Cleanup(srv.Close)
	kc := kubeconfig(t, srv.URL)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"pods", []string{"pods", "node-1", "-l", "app=nosuch"}, "No resources found on node node-1.\n"},
		{"pods in a namespace", []string{"pods", "node-1", "-n", "nosuch"}, "No resources found in nosuch namespace on node node-1.\n"},
		{"events", []string{"events", "node-1", "--pod=nosuch"}, "No resources found on node node-1.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append(tc.args, "--kubeconfig", kc)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut)
			}
			if out != "" || !strings.HasSuffix(errOut, tc.want) {
				t.Errorf("stdout %q, stderr %q; want nothing, and %q on stderr", out, errOut, tc.want)
			}
		})
	}
}
