package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
	"github.com/podsrc/podsrc/test/cluster"
)

// TestPluginAgainstHostileAgents runs the real plugin binary through the
// real API server's node proxy against fake agents on the node's address
// that put terminal sequences in every string, stall, or answer without
// end: nothing reaches the output raw, and each failure is bounded and
// says what happened.
func TestPluginAgainstHostileAgents(t *testing.T) {
	c := cluster.Get(t)
	plugin := buildPlugin(t, repoRoot(t))
	port := func(f fakeagent.Fault) string {
		fa := fakeagent.NewHostile(c.NodeName)
		fa.Fault = f
		return strconv.Itoa(serveInNetNS(t, c, fa))
	}
	hostile, stall, endless, endlessLine := port(fakeagent.NoFault), port(fakeagent.FaultStall), port(fakeagent.FaultEndless), port(fakeagent.FaultEndlessLine)
	tests := []struct {
		name    string
		args    []string
		stdout  string // what the output must hold, escaped
		stderr  string // the error, when the command must fail
		timeout time.Duration
	}{
		{name: "sources", args: []string{"sources", "--agent-port", hostile, "-o", "wide"}, stdout: `\x1b]0;pwned\a`},
		{name: "pods", args: []string{"pods", "--agent-port", hostile, "-o", "wide"}, stdout: `\x1b]0;pwned\a`},
		{name: "pleg", args: []string{"pleg", "--agent-port", hostile, "-o", "wide"}, stdout: `\x1b]0;pwned\a`},
		// A version that is not one is not shown at all.
		{name: "version", args: []string{"version", "--agent-port", hostile}, stdout: `Agent Version: unknown (serves podsrc.io/unknown, unknown)`},
		{name: "pods json", args: []string{"pods", "--agent-port", hostile, "-o", "json"}, stdout: `\u001b]0;pwned\u0007`},
		{name: "stalled stream", args: []string{"watch", "--agent-port", stall, "--request-timeout=3s", "--idle-timeout=10s", "--max-reconnects=0"}, stderr: "did not answer within --request-timeout=3s"},
		{name: "stalled agent", args: []string{"pods", "--agent-port", stall, "--request-timeout=3s"}, stderr: "did not answer within 3s", timeout: 30 * time.Second},
		{name: "endless answer", args: []string{"sources", "--agent-port", endless}, stderr: "with more than 16 MiB", timeout: time.Minute},
		{name: "endless stream line", args: []string{"watch", "--agent-port", endlessLine}, stderr: "a stream message longer than 8 MiB", timeout: time.Minute},
	}
	t.Run("watch", func(t *testing.T) {
		// Follows the agent until interrupted, as users stop it.
		cmd := exec.Command(plugin, "watch", c.NodeName, "--agent-port", hostile, "--since=0", "--kubeconfig", c.Kubeconfig)
		stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.After(30 * time.Second)
		for strings.Count(stdout.String(), `\x1b]0;pwned\a`) < 3 {
			select {
			case err := <-done:
				t.Fatalf("watch ended: %v; stdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			case <-deadline:
				cmd.Process.Kill()
				t.Fatalf("watch printed no event in 30s; stdout:\n%s\nstderr:\n%s", stdout, stderr)
			case <-time.After(50 * time.Millisecond):
			}
		}
		cmd.Process.Signal(os.Interrupt)
		if err := <-done; err != nil {
			t.Errorf("watch after SIGINT: %v; stderr:\n%s", err, stderr)
		}
		for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if bad := fakeagent.RawControls(out, false); len(bad) > 0 {
				t.Errorf("%s holds raw control characters %v:\n%s", name, bad, out)
			}
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 30 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, plugin, append(tc.args, c.NodeName, "--kubeconfig", c.Kubeconfig)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("kubectl-podsrc %s did not end within %s; stderr:\n%s", strings.Join(tc.args, " "), timeout, stderr.String())
			}
			if (tc.stderr != "") != (err != nil) {
				t.Errorf("kubectl-podsrc %s: %v; stderr:\n%s", strings.Join(tc.args, " "), err, stderr.String())
			}
			for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
				if bad := fakeagent.RawControls(out, false); len(bad) > 0 {
					t.Errorf("%s holds raw control characters %v:\n%s", name, bad, out)
				}
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
			if want := fmt.Sprintf("node %q", c.NodeName); tc.stderr != "" && (!strings.Contains(stderr.String(), tc.stderr) || !strings.Contains(stderr.String(), want)) {
				t.Errorf("stderr %q, want an error naming %s and saying %q", stderr.String(), want, tc.stderr)
			}
		})
	}
}

// serveInNetNS serves h on the node's address, inside the cluster's
// network namespace where the API server's node proxy reaches it, and
// returns the port.
func serveInNetNS(t *testing.T, c *cluster.Cluster, h http.Handler) int {
	t.Helper()
	ln, err := listenInNetNS(c.NetNSPath, net.JoinHostPort(c.NodeIP, "0"))
	if err != nil {
		t.Fatalf("listening on %s in %s: %v", c.NodeIP, c.NetNSPath, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// listenInNetNS opens a TCP listener on addr in the network namespace at
// path: the socket stays there when the thread that made it goes back.
func listenInNetNS(path, addr string) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The thread is left locked, and so discarded when the goroutine
		// ends, whether or not it could return to its namespace.
		runtime.LockOSThread()
		ns, err := os.Open(path)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("entering the network namespace: %w", err)}
			return
		}
		ln, err := net.Listen("tcp", addr)
		done <- result{ln, err}
	}()
	r := <-done
	return r.ln, r.err
}
