package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/syncbuf"
)

// agentProcess is the agent binary running for a test.
type agentProcess struct {
	cmd *exec.Cmd
	// done is closed when the process has exited; err is then Wait's
	// result. logs (stdout and stderr) may be read at any time.
	done chan struct{}
	err  error
	logs syncbuf.Buffer
}

// startProcess runs bin with args until the test ends (killing it then if
// it still runs), and logs its output when the test failed. Its journal is
// in a directory of the test's unless args give another.
func startProcess(t *testing.T, bin string, args ...string) *agentProcess {
	t.Helper()
	args = append([]string{"--journal-dir=" + t.TempDir()}, args...)
	p := &agentProcess{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("agent output:\n%s", p.logs.String())
		}
	})
	return p
}

// stop sends SIGTERM and waits for the process to exit, killing it after
// waitLimit.
func (p *agentProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}
