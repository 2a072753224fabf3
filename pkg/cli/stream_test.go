package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestRowsPrintedAsNodesAnswer holds a slow node while node-1 answers: the
// formats that print node by node (-o name, custom-columns) have written
// node-1's rows (and a header) before the slow node is let go, and print
// the header once; a table, which aligns all rows, --sort-by and the List
// formats have written nothing. The whole output is the golden
// file stream-<name>.txt.
func TestRowsPrintedAsNodesAnswer(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// early is stdout while the slow node is held.
		early string
		// header is a word of the header, printed once, if any.
		header string
	}{
		// A table holds the rows to align them all, as kubectl get does.
		{"table", nil, "", "READY"},
		{"custom-columns", []string{"-o", "custom-columns=NODE:.nodeName,SOURCE:.metadata.name"},
			"NODE     SOURCE\nnode-1   file\n", "SOURCE"},
		{"name", []string{"-o", "name"}, "source.podsrc.io/node-1/file\n", ""},
		{"sort-by", []string{"--sort-by", ".nodeName"}, "", "READY"},
		{"json", []string{"-o", "json"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, u1 := newAgent(t, "node-1")
			slow := fakeagent.New("node-2-slow-to-answer")
			slow.Sources.Items = []v1alpha1.Source{{Name: "api", Target: "https://10.0.0.1:6443", Seen: true, Pods: 12}}
			hold := make(chan struct{})
			slow.Hold = hold
			srv := httptest.NewServer(slow)
			t.Cleanup(srv.Close)
			api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u1, "node-2-slow-to-answer": srv.URL}, nodes: []string{"node-1", "node-2-slow-to-answer"}, kubelet: "v1.36.3"})
			t.Cleanup(api.Close)

			out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
			common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
			term, ticks := &fakeTerminal{}, make(chan time.Time)
			common.Terminal = &Terminal{Out: term, Width: 80, Ticks: ticks}
			cmd := newRootCommand(common)
			cmd.SetArgs(append([]string{"sources", "node-1", "node-2-slow-to-answer", "--kubeconfig", kubeconfig(t, api.URL)}, tc.args...))
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(context.Background()) }()

			// The progress line names only the slow node once node-1's
			// answer is done with, printed or kept.
			awaitLine(t, term, ticks, "waiting for 1/2 nodes: node-2-slow-to-answer")
			if got := out.String(); got != tc.early {
				t.Fatalf("stdout %q while the slow node is held, want %q", got, tc.early)
			}
			close(hold)
			if err := <-done; err != nil {
				t.Fatalf("%v, stderr %s", err, errOut)
			}
			if tc.header != "" {
				if n := strings.Count(out.String(), tc.header); n != 1 {
					t.Errorf("the header is printed %d times:\n%s", n, out)
				}
			}
			golden.Check(t, "stream-"+tc.name+".txt", []byte(out.String()))
		})
	}
}
