package cli

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// startExit starts kubectl podsrc as main runs it (errors not printed yet
// are printed by execute); done receives the exit code.
func startExit(ctx context.Context, args ...string) (stdout, stderr *syncbuf.Buffer, done <-chan int) {
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	common.Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	code := make(chan int, 1)
	go func() { code <- execute(ctx, common, args) }()
	return out, errOut, code
}

// serveUntilCleanup serves h on loopback and returns its URL; the cleanup
// closes the connections first, so that a stalled answer cannot keep the
// server from closing.
func serveUntilCleanup(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// hostileCluster serves, through a fake API server's node proxy, one
// hostile agent per way of misbehaving, and returns its kubeconfig.
func hostileCluster(t *testing.T) (kubeconfigPath string, nodes []string) {
	t.Helper()
	agents := map[string]string{}
	serve := func(node string, change func(*fakeagent.Agent)) {
		fa := fakeagent.NewHostile(node)
		fa.Heartbeat = 100 * time.Millisecond
		change(fa)
		agents[node] = serveUntilCleanup(t, fa)
		nodes = append(nodes, node)
	}
	serve("answers", func(*fakeagent.Agent) {})
	// named answers as answers does, under its own node's name: why takes
	// its answers (an agent that names another node gets none taken).
	serve("named", func(fa *fakeagent.Agent) { ownName(fa, "named") })
	serve("status", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultStatus })
	serve("text", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultText })
	serve("skew", func(fa *fakeagent.Agent) { fa.Served = "v9" })
	serve("stall", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultStall })
	serve("endless", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultEndless })
	serve("endless-line", func(fa *fakeagent.Agent) { fa.Fault = fakeagent.FaultEndlessLine; ownName(fa, "endless-line") })
	return kubeconfig(t, serveUntilCleanup(t, &fakeAPIServer{agents: agents, nodes: nodes})), nodes
}

// ownName gives a hostile agent its node's name back, on its lists and
// on each of their items.
func ownName(fa *fakeagent.Agent, node string) {
	fa.Sources.NodeName, fa.Pods.NodeName, fa.PLEG.NodeName, fa.Version.NodeName = node, node, node, node
	for i := range fa.Sources.Items {
		fa.Sources.Items[i].NodeName = node
	}
	for i := range fa.Pods.Items {
		fa.Pods.Items[i].NodeName = node
	}
}

// hostileCommands are the extra arguments of every command of kubectl
// podsrc when run against hostile agents; a command missing here fails
// TestHostileAgents, so that a new command is covered.
var hostileCommands = map[string][][]string{
	"sources": {nil, {"-o", "wide"}, {"-o", "json"}, {"-o", "yaml"}, {"-o", "kyaml"}, {"-o", "jsonpath={..lastError}"}, {"-o", "go-template={{range .items}}{{.nodeName}} {{range .items}}{{.target}}{{end}}{{end}}"}},
	"pods":    {nil, {"-o", "wide"}, {"-o", "json"}, {"-o", "jsonpath={..name}"}},
	"pleg":    {nil, {"-o", "wide"}, {"-o", "json"}, {"-o", "go-template={{range .items}}{{.message}}{{end}}"}},
	"version": {nil, {"-o", "json"}, {"-o", "yaml"}},
	"watch":   {{"--since=0"}, {"--snapshot", "-o", "wide"}, {"--since=0", "-o", "json"}, {"--since=0", "-o", "yaml"}, {"--since=0", "-o", "jsonpath={.event.podName}"}},
	"events":  {nil, {"-o", "json"}, {"--tail=1", "-o", "yaml"}},
}

// escapedPayload returns how Payload's window-title sequence shows in the
// output format of args.
func escapedPayload(args []string) string {
	format := ""
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			format = args[i+1]
		}
	}
	switch format {
	case "json":
		return `\u001b]0;pwned\u0007`
	case "yaml", "kyaml":
		return `\e]0;pwned\a`
	}
	return `\x1b]0;pwned\a`
}

// TestHostileAgents runs every command against agents that put terminal
// sequences in every string, answer errors quoting them, stall, or send
// answers without end: the output must hold no raw control character,
// every failing node must get its own error, the answering node's rows
// must print, and every command must return within its bound.
func TestHostileAgents(t *testing.T) {
	t.Parallel()
	kc, nodes := hostileCluster(t)
	// deploy and undeploy ask the API server, not the agents' APIs: the
	// only agent text they meet (a /readyz answer or a log line of an agent
	// that is not ready) reaches the user in their error, on the escaping
	// stderr that TestEscapingWriter covers.
	// pod asks one node about one pod: TestHostilePod; why asks one node:
	// TestHostileWhy; so does record: TestHostileRecord.
	notAgents := map[string]bool{"completion": true, "help": true, "options": true, "deploy": true, "undeploy": true, "pod": true, "why": true, "record": true}
	for _, c := range newRootCommand(NewCommonOptions(genericiooptions.NewTestIOStreamsDiscard())).Commands() {
		if name := c.Name(); !notAgents[name] && hostileCommands[name] == nil {
			t.Errorf("command %q is not run against hostile agents: add it to hostileCommands", name)
		}
	}
	// Long enough for 16 MiB through the fake API server's proxy under
	// the race detector on a busy machine (5 s was not, with the whole
	// package under -race on two cores beside a cluster build).
	const timeout = 15 * time.Second
	wantErrors := hostileErrors(timeout)
	// Watch reads a stream: the request timeout bounds its first answer,
	// then an idle timeout and a cap on a line. The idle timeout is twice
	// the request timeout: the endless line must reach its 8 MiB cap before
	// the stream counts as idle, and a line is not a message until it ends.
	wantWatchErrors := map[string]string{
		"status":       wantErrors["status"],
		"text":         wantErrors["text"],
		"skew":         wantErrors["skew"],
		"stall":        "did not answer within --request-timeout=" + timeout.String(),
		"endless":      wantErrors["endless"],
		"endless-line": "a stream message longer than 8 MiB",
	}
	// events reads its history as the other commands read their answers.
	wantEventsErrors := maps.Clone(wantWatchErrors)
	wantEventsErrors["stall"] = wantErrors["stall"]
	// Version asks /version, which the skewed agent serves.
	wantVersionErrors := map[string]string{"status": wantErrors["status"], "text": wantErrors["text"], "stall": wantErrors["stall"], "endless": wantErrors["endless"]}
	for cmd, variants := range hostileCommands {
		for i, extra := range variants {
			want := wantErrors
			switch cmd {
			case "watch":
				want = wantWatchErrors
			case "events":
				want = wantEventsErrors
			case "version":
				want = wantVersionErrors
			}
			// The bounds are a matter of the command, not of the output
			// format: only the first variant waits for the stalled and the
			// endless agents.
			if i > 0 {
				want = maps.Clone(want)
				delete(want, "stall")
				delete(want, "endless")
				delete(want, "endless-line")
			}
			args := []string{cmd}
			for _, n := range nodes {
				if _, fails := want[n]; fails || n == "answers" {
					args = append(args, n)
				}
			}
			args = append(args, extra...)
			// --node-timeout=0: the request timeout alone bounds each
			// request, longer than the node timeout's default.
			args = append(args, "--kubeconfig", kc, "--request-timeout", timeout.String(), "--node-timeout=0")
			watch := cmd == "watch"
			if watch || cmd == "events" {
				args = append(args, "--idle-timeout="+(2*timeout).String(), "--max-reconnects=0")
			}
			t.Run(strings.Join(append([]string{cmd}, extra...), " "), func(t *testing.T) {
				t.Parallel()
				// Against the answering node watch runs until stopped: it
				// is stopped once every failing node has failed.
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				start := time.Now()
				stdout, stderr, done := startExit(ctx, args...)
				bound := time.After(timeout + 20*time.Second)
				if watch {
					for !strings.Contains(stdout.String(), escapedPayload(extra)) || strings.Count(stderr.String(), "error: node ") < len(want) {
						select {
						case <-bound:
							t.Fatalf("not every failing node failed in time; stdout:\n%s\nstderr:\n%s", stdout, stderr)
						case <-time.After(10 * time.Millisecond):
						}
					}
					cancel()
				}
				var code int
				select {
				case code = <-done:
				case <-bound:
					t.Fatalf("no end within %s; stdout:\n%s\nstderr:\n%s", timeout+20*time.Second, stdout, stderr)
				}
				r := struct {
					out, errOut string
					code        int
				}{stdout.String(), stderr.String(), code}
				t.Logf("%s in %s", args[0], time.Since(start).Round(time.Millisecond))
				// A tab is layout in YAML, never in a table's cell.
				if bad := fakeagent.RawControls(r.out, strings.Contains(escapedPayload(extra), `\e`)); len(bad) > 0 {
					t.Errorf("stdout has raw control characters %v:\n%s", bad, r.out)
				}
				if bad := fakeagent.RawControls(r.errOut, false); len(bad) > 0 {
					t.Errorf("stderr has raw control characters %v:\n%s", bad, r.errOut)
				}
				if r.code != 1 {
					t.Errorf("exit code %d, want 1 for the failing nodes", r.code)
				}
				switch want := escapedPayload(extra); {
				case cmd == "version":
					// An agent's versions show only when they are versions.
					for _, l := range strings.Split(r.out, "\n") {
						if (strings.Contains(l, "ersion") || strings.Contains(l, "emantics")) && strings.Contains(l, want) {
							t.Errorf("stdout shows the agent's version text, not %q: %s", client.UnknownVersion, l)
						}
					}
					if !strings.Contains(r.out, client.UnknownVersion) {
						t.Errorf("stdout lacks %q:\n%s", client.UnknownVersion, r.out)
					}
				case !strings.Contains(r.out, want):
					t.Errorf("stdout lacks the agent's strings escaped as %q:\n%s", want, r.out)
				}
				for node, w := range want {
					line := errorLine(r.errOut, node)
					if line == "" || !strings.Contains(line, w) {
						t.Errorf("node %s: error line %q, want one with %q; stderr:\n%s", node, line, w, r.errOut)
					}
				}
				if n := strings.Count(r.errOut, "error: "); n != len(want) {
					t.Errorf("%d errors, want one for each of the %d failing nodes; stderr:\n%s", n, len(want), r.errOut)
				}
			})
		}
	}
}

// hostileErrors are, by node, the errors of the agents that fail a
// request, as the user sees them, with that request timeout.
func hostileErrors(timeout time.Duration) map[string]string {
	return map[string]string{
		"status":  `answered 500: \x1b]0;pwned\a`,
		"text":    `answered 502: \x1b]0;pwned\a`,
		"skew":    `serves podsrc.io/unknown`,
		"stall":   "did not answer within " + timeout.String(),
		"endless": "more than 16 MiB",
	}
}

// errorLine returns the line of stderr that reports node's error.
func errorLine(stderr, node string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, fmt.Sprintf("error: node %q: ", node)) {
			return l
		}
	}
	return ""
}

// TestDefaultRequestTimeout: without --node-timeout a stalled agent fails
// its node after DefaultNodeTimeout, without it and --request-timeout
// after DefaultRequestTimeout, and the options say so.
func TestDefaultRequestTimeout(t *testing.T) {
	t.Parallel()
	help, _, code := func() (string, string, int) {
		out, errOut, done := startExit(context.Background(), "options")
		c := <-done
		return out.String(), errOut.String(), c
	}()
	if code != 0 || !regexp.MustCompile(`--request-timeout='30s'`).MatchString(help) || !regexp.MustCompile(`--node-timeout=10s`).MatchString(help) {
		t.Errorf("options (exit %d) do not give the default request and node timeouts:\n%s", code, help)
	}
	fa := fakeagent.New("node-1")
	fa.Fault = fakeagent.FaultStall
	u := serveUntilCleanup(t, fa)
	tests := []struct {
		name  string
		args  []string
		after time.Duration
		want  []string
	}{
		{"node timeout", nil, DefaultNodeTimeout, []string{"did not answer within --node-timeout=10s"}},
		{"request timeout", []string{"--node-timeout=0"}, DefaultRequestTimeout, []string{"did not answer within 30s", "--request-timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, stderr, done := startExit(context.Background(), append([]string{"pods", "--agent-url", u}, tc.args...)...)
			var code int
			select {
			case code = <-done:
			case <-time.After(tc.after + 20*time.Second):
				t.Fatalf("pods against a stalled agent did not end within %s", tc.after+20*time.Second)
			}
			took := time.Since(start)
			t.Logf("pods against a stalled agent ended after %s", took.Round(time.Millisecond))
			if code != 1 || took < tc.after {
				t.Fatalf("exit %d after %s, stderr %q; want 1 after %s", code, took, stderr, tc.after)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}
