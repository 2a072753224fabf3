// Package agentprocess runs a podsrc-agent binary for the process tests of
// the agent modules (cmd/podsrc-agent/kubelet1NN): the newest minor's
// module holds the binary's own tests, an older one the tests of what only
// its minor has (a feature gate the newer kubelets dropped).
package agentprocess

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/syncbuf"
)

// WaitLimit bounds every wait of the process tests.
const WaitLimit = 30 * time.Second

// Process is the agent binary running for a test.
type Process struct {
	// Cmd is the running command.
	Cmd  *exec.Cmd
	done chan struct{}
	err  error
	logs syncbuf.Buffer
}

// Start runs bin with args until the test ends (killing it then if it
// still runs), and logs its output when the test failed. Its journal is in
// a directory of the test's unless args give another.
func Start(t *testing.T, bin string, args ...string) *Process {
	t.Helper()
	args = append([]string{"--journal-dir=" + t.TempDir()}, args...)
	p := &Process{Cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.logs, &p.logs
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.Cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("agent output:\n%s", p.logs.String())
		}
	})
	return p
}

// StartServing runs bin with args as node-1 on a free loopback address and
// returns the process and the address's URL.
func StartServing(t *testing.T, bin string, args ...string) (*Process, string) {
	t.Helper()
	addr := FreeAddress(t)
	return Start(t, bin, append([]string{"--node-name=node-1", "--listen-address=" + addr}, args...)...), "http://" + addr
}

// Done is closed when the process has exited; Err is then Wait's result.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is Wait's result, once Done is closed.
func (p *Process) Err() error { return p.err }

// Logs is the process's output (stdout and stderr) so far.
func (p *Process) Logs() string { return p.logs.String() }

// Stop sends SIGTERM and waits for the process to exit, killing it after
// WaitLimit.
func (p *Process) Stop() {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(WaitLimit):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// Terminate sends SIGTERM and returns how long the agent took to exit 0,
// failing the test when it exits otherwise or runs on past WaitLimit.
func (p *Process) Terminate(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("agent exited with %v after SIGTERM", p.err)
		}
	case <-time.After(WaitLimit):
		t.Fatalf("agent still running %v after SIGTERM", WaitLimit)
	}
	return time.Since(start)
}
