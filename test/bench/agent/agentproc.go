//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// staticAgent is the real podsrc-agent binary with a file source of static
// pods, listening on loopback, as "agent hostile" and "agent fair" run it.
type staticAgent struct {
	// dir is the manifest directory; addr and base the API's address and
	// URL.
	dir, addr, base string
	pid             int
	cmd             *exec.Cmd
	exited          chan error
	tmp, logPath    string
	logFile         *os.File
}

// startStaticAgent runs bin with pods static pods and limitMiB as its
// GOMEMLIMIT, plus args, and waits until it has every pod. The caller
// stops it.
func startStaticAgent(ctx context.Context, bin string, pods int, limitMiB float64, args ...string) (a *staticAgent, err error) {
	a = &staticAgent{}
	if a.tmp, err = os.MkdirTemp("", "bench-agent-static-"); err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	defer func() {
		if err != nil {
			a.stop(true)
		}
	}()
	a.dir = filepath.Join(a.tmp, "manifests")
	if err := os.Mkdir(a.dir, 0o755); err != nil {
		return a, fmt.Errorf("manifest directory: %w", err)
	}
	for i := range pods {
		if err := writeStaticPod(a.dir, i, ""); err != nil {
			return a, err
		}
	}
	port, err := freePort()
	if err != nil {
		return a, err
	}
	a.addr = "127.0.0.1:" + strconv.Itoa(port)
	a.base = "http://" + a.addr
	a.logPath = filepath.Join(a.tmp, "agent.log")
	if a.logFile, err = os.Create(a.logPath); err != nil {
		return a, fmt.Errorf("agent log: %w", err)
	}
	a.cmd = exec.Command(bin, append([]string{"--node-name=bench", "--api-source=false", "--runtime-endpoint=",
		"--static-pod-path=" + a.dir, "--listen-address=" + a.addr, "--heartbeat=1s",
		"--journal-dir=" + filepath.Join(a.tmp, "journal")}, args...)...)
	a.cmd.Env = append(os.Environ(), fmt.Sprintf("GOMEMLIMIT=%dMiB", int(limitMiB)))
	a.cmd.Stdout, a.cmd.Stderr = a.logFile, a.logFile
	if err := a.cmd.Start(); err != nil {
		a.cmd = nil
		return a, fmt.Errorf("starting %s: %w", bin, err)
	}
	a.pid = a.cmd.Process.Pid
	a.exited = make(chan error, 1)
	go func() { a.exited <- a.cmd.Wait() }()
	fmt.Fprintf(os.Stderr, "bench-agent: agent %d with %d pods on %s\n", a.pid, pods, a.base)
	return a, waitSourcePods(ctx, a.base, v1alpha1.SourceFile, pods, a.exited, 3*time.Minute)
}

// stop stops the agent by its PID (SIGTERM, then SIGKILL after stopLimit),
// prints the end of its log when failed, and removes its files.
func (a *staticAgent) stop(failed bool) {
	if a.cmd != nil {
		_ = a.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(stopLimit):
			_ = a.cmd.Process.Kill()
			<-a.exited
		}
	}
	if failed {
		if log, rerr := os.ReadFile(a.logPath); rerr == nil {
			fmt.Fprintf(os.Stderr, "--- agent log ---\n%s\n", tail(string(log), 40))
		}
	}
	if a.logFile != nil {
		_ = a.logFile.Close()
	}
	_ = os.RemoveAll(a.tmp)
}
