package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// fakeTerminal is what a terminal shows of what is written to it: lines,
// the last one being where the cursor is, with the carriage return and
// erase-to-end-of-line that the progress line uses.
type fakeTerminal struct {
	mu    sync.Mutex
	lines []string
	line  []rune
	col   int
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := string(p)
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, clearToEnd):
			f.line = f.line[:f.col]
			s = s[len(clearToEnd):]
		case s[0] == '\r':
			f.col = 0
			s = s[1:]
		case s[0] == '\n':
			f.lines = append(f.lines, string(f.line))
			f.line, f.col = nil, 0
			s = s[1:]
		default:
			r := []rune(s)[0]
			if f.col < len(f.line) {
				f.line[f.col] = r
			} else {
				f.line = append(f.line, r)
			}
			f.col++
			s = s[len(string(r)):]
		}
	}
	return len(p), nil
}

// current returns the line the cursor is on.
func (f *fakeTerminal) current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.line)
}

// printed returns the lines above the cursor.
func (f *fakeTerminal) printed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.lines)
}

// awaitLine ticks the progress line until the cursor's line is want.
func awaitLine(t *testing.T, term *fakeTerminal, ticks chan time.Time, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for term.current() != want {
		select {
		case ticks <- time.Time{}:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the terminal shows %q, want %q", term.current(), want)
		}
	}
}

// TestFanOutProgressAndNodeTimeout: a slow node and a stalled one show on
// the progress line while the others are done; the table's rows wait for
// all nodes, the stalled one fails on --node-timeout, and the line is gone
// when the command ends. stdout and stderr are the same terminal.
func TestFanOutProgressAndNodeTimeout(t *testing.T) {
	first, slow, stalled := fakeagent.New("node-1"), fakeagent.New("slow"), fakeagent.New("stalled")
	first.Sources.Items = []v1alpha1.Source{{Name: "file", Target: "/etc/kubernetes/manifests", Seen: true, Pods: 1}}
	holdFirst, hold := make(chan struct{}), make(chan struct{})
	first.Hold, slow.Hold = holdFirst, hold
	stalled.Fault = fakeagent.FaultStall
	agents := map[string]string{}
	for name, a := range map[string]*fakeagent.Agent{"node-1": first, "slow": slow, "stalled": stalled} {
		srv := httptest.NewServer(a)
		t.Cleanup(srv.Close)
		agents[name] = srv.URL
	}
	api := httptest.NewServer(&fakeAPIServer{agents: agents, nodes: []string{"node-1", "slow", "stalled"}})
	t.Cleanup(api.Close)

	term := &fakeTerminal{}
	ticks := make(chan time.Time)
	errOut := &syncbuf.Buffer{}
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: term, ErrOut: errOut})
	common.Terminal = &Terminal{Out: term, Width: 80, Ticks: ticks}
	cmd := newRootCommand(common)
	cmd.SetArgs([]string{"sources", "node-1", "slow", "stalled", "--kubeconfig", kubeconfig(t, api.URL), "--node-timeout", "5s"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()

	awaitLine(t, term, ticks, "waiting for 3/3 nodes: node-1, slow, stalled")
	close(holdFirst)
	awaitLine(t, term, ticks, "waiting for 2/3 nodes: slow, stalled")
	// The table holds node-1's rows until every node is done, to align
	// them all.
	if got := term.printed(); len(got) != 0 {
		t.Fatalf("while the slow node is held, the terminal shows\n%s\nwant nothing yet", strings.Join(got, "\n"))
	}
	close(hold)
	awaitLine(t, term, ticks, "waiting for 1/3 nodes: stalled")

	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the command did not end after the node timeout")
	}
	if !errors.Is(err, errFailed) {
		t.Fatalf("err %v, want the nodes' failure; stderr %s", err, errOut)
	}
	if got := term.current(); got != "" {
		t.Errorf("the progress line was not cleared: %q", got)
	}
	out := strings.Join(term.printed(), "\n")
	if got := strings.Count(out, "READY"); got != 1 {
		t.Errorf("the header is printed %d times:\n%s", got, out)
	}
	if !strings.Contains(out, "\nslow ") {
		t.Errorf("output lacks node slow:\n%s", out)
	}
	if want := `error: node "stalled": the agent did not answer within --node-timeout=5s`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if strings.Contains(errOut.String(), "waiting for") {
		t.Errorf("the progress line went to the error stream, not the terminal:\n%s", errOut)
	}
}

func TestProgressLineFitsTheTerminal(t *testing.T) {
	tests := []struct {
		name    string
		pending []string
		width   int
		want    string
	}{
		{"fits", []string{"a", "b"}, 80, "waiting for 2/120 nodes: a, b"},
		{"cut to one column less than the width", []string{"node-aaaa", "node-bbbb", "node-cccc"}, 40, "waiting for 3/120 nodes: node-aaaa, no…"},
		{"names escaped", []string{"a\x1b[2J"}, 80, `waiting for 1/120 nodes: a\x1b[2J`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLine(tc.pending, 120, tc.width); got != tc.want {
				t.Errorf("progressLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoProgressLineOffATerminal(t *testing.T) {
	if term := stderrTerminal(&syncbuf.Buffer{}); term != nil {
		t.Fatalf("a buffer is taken for a terminal: %+v", term)
	}
}

func TestWatchSaysWhichNodesItWatches(t *testing.T) {
	_, u1 := newAgent(t, "node-1")
	_, u2 := newAgent(t, "node-2")
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u1, "node-2": u2}, nodes: []string{"node-1", "node-2"}})
	t.Cleanup(api.Close)
	ctx, cancel := context.WithCancel(context.Background())
	errOut := &syncbuf.Buffer{}
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &syncbuf.Buffer{}, ErrOut: errOut})
	cmd := newRootCommand(common)
	cmd.SetArgs([]string{"watch", "--all-nodes", "--kubeconfig", kubeconfig(t, api.URL)})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(errOut.String(), "watching 2 nodes: node-1, node-2\n") {
		select {
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("stderr %q does not say which nodes are watched", errOut)
		}
	}
	cancel()
	<-done
}

// TestMaxBytesAcrossNodes: --max-bytes bounds what one command holds of
// all its nodes' answers together, measured on what they hold: the body
// while it is decoded, then the decoded answer. Two nodes answer about
// 1 MiB each, which holds about 1.3 MiB decoded, with room for one: a
// format that prints each node's rows as it answers lets them go and both
// nodes print; one that needs all answers (one List, --sort-by) prints
// node-1, and node-2 fails naming the flag; a table, which holds node-1's
// rows (not its answer) to align them, too.
func TestMaxBytesAcrossNodes(t *testing.T) {
	agents := map[string]string{}
	long := strings.Repeat("p", 1000)
	for _, node := range []string{"node-1", "node-2"} {
		fa, u := newAgent(t, node)
		for i := range 1000 {
			fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: fmt.Sprintf("%s-%d", long, i), Namespace: "default", Source: "api"})
		}
		agents[node] = u
	}
	srv := httptest.NewServer(&fakeAPIServer{agents: agents, nodes: []string{"node-1", "node-2"}})
	defer srv.Close()
	kc := kubeconfig(t, srv.URL)
	tests := []struct {
		name string
		args []string
		// all says the format holds every answer until the end.
		all bool
		// rows says the format holds every row until the end.
		rows bool
	}{
		{"table", nil, false, true},
		{"name", []string{"-o", "name"}, false, false},
		{"custom-columns", []string{"-o", "custom-columns=NODE:.nodeName,NAME:.metadata.name"}, false, false},
		{"json", []string{"-o", "json"}, true, false},
		{"jsonpath", []string{"-o", "jsonpath={.items[*].nodeName}"}, true, false},
		{"sort-by", []string{"--sort-by", ".metadata.name"}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"pods", "--all-nodes", "--kubeconfig", kc, "--max-bytes=3Mi", "--max-concurrency=1"}, tc.args...)
			out, errOut, err := run(t, context.Background(), args...)
			if !tc.all && !tc.rows {
				if err != nil || strings.Count(out, long+"-999") != 2 {
					t.Errorf("err %v: both nodes should print, as their rows are let go once printed:\n%.400s\nstderr %s", err, out, errOut)
				}
				return
			}
			if !errors.Is(err, errFailed) {
				t.Fatalf("err %v, want the silent non-zero exit; stderr %q", err, errOut)
			}
			if !strings.Contains(out, "node-1") || strings.Contains(out, "node-2") {
				t.Errorf("node-1 should print, node-2 not:\n%.400s", out)
			}
			want := `error: node "node-2": holding the answer of /api/v1alpha1/pods from the agent on node "node-2" would take this command past the 3Mi it holds of what agents sent, across nodes (--max-bytes): ask fewer nodes at once`
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr %q, want node-2's error naming --max-bytes", errOut)
			}
		})
	}
	if _, errOut, err := run(t, context.Background(), "pods", "--all-nodes", "--kubeconfig", kc); err != nil {
		t.Errorf("within the default budget: %v\n%s", err, errOut)
	}
}

// TestMaxBytesCountsWhatIsHeld: --max-bytes counts what the nodes'
// answers hold decoded, not the bytes they took on the wire. Four nodes
// answer 5,000 small pods each, about 0.25 MiB on the wire and 2 MiB
// decoded: all four answers' bytes fit in 5Mi, what they hold does not.
// One at a time, the first two nodes are held and print; the other two
// fail, each with an error that names its node and the flag.
func TestMaxBytesCountsWhatIsHeld(t *testing.T) {
	nodes := []string{"node-1", "node-2", "node-3", "node-4"}
	agents := map[string]string{}
	for _, node := range nodes {
		fa, u := newAgent(t, node)
		fa.Pods.Items = nil
		for i := range 5000 {
			fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: fmt.Sprintf("p-%d", i), Namespace: "default"})
		}
		agents[node] = u
	}
	srv := httptest.NewServer(&fakeAPIServer{agents: agents, nodes: nodes})
	defer srv.Close()
	out, errOut, err := run(t, context.Background(), "pods", "--all-nodes", "--kubeconfig", kubeconfig(t, srv.URL), "--max-bytes=5Mi", "--max-concurrency=1", "-o", "jsonpath={range .items[*]}{.nodeName}{\"\\n\"}{end}")
	if !errors.Is(err, errFailed) {
		t.Fatalf("err %v, want the silent non-zero exit; stderr %q", err, errOut)
	}
	for i, node := range nodes {
		printed := strings.Count(out, node+"\n")
		failed := strings.Contains(errOut, `error: node "`+node+`": holding the answer of /api/v1alpha1/pods from the agent on node "`+node+`" would take this command past the 5Mi it holds of what agents sent, across nodes (--max-bytes)`)
		if held := i < 2; held && (printed != 5000 || failed) || !held && (printed != 0 || !failed) {
			t.Errorf("%s: %d pods printed, failed %v; want the first two nodes' pods and the others' errors naming --max-bytes\nstderr: %s", node, printed, failed, errOut)
		}
	}
}

// TestFanOutLetsPrintedAnswersGo: an answer each printed and does not keep
// is not held to the end; one it keeps, or a failure, is.
func TestFanOutLetsPrintedAnswersGo(t *testing.T) {
	results := fanOut(context.Background(), []string{"printed", "kept", "failed"}, 1, func(_ context.Context, node string) (string, error) {
		if node == "failed" {
			return "", errors.New("no answer")
		}
		return node + "'s answer", nil
	}, func(r result[string]) bool { return r.Node != "printed" })
	want := []result[string]{{Node: "printed", Printed: true}, {Node: "kept", Value: "kept's answer"}, {Node: "failed", Err: results[2].Err}}
	if fmt.Sprint(results) != fmt.Sprint(want) || results[2].Err == nil {
		t.Errorf("results %v, want %v", results, want)
	}
	if values, failed := splitResults(results); fmt.Sprint(values) != "[kept's answer]" || !failed {
		t.Errorf("splitResults gives %q, %v; want the kept answer, and a failure", values, failed)
	}
}
