package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri/critest"
)

// startAgent runs bin with args on a free loopback address and returns
// the process and the address's URL.
func startAgent(t *testing.T, bin string, args ...string) (*agentProcess, string) {
	t.Helper()
	addr := freeAddress(t)
	return startProcess(t, bin, append([]string{"--node-name=node-1", "--listen-address=" + addr}, args...)...), "http://" + addr
}

// await polls cond until it holds, failing the test after waitLimit.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, waitLimit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serving reports whether the agent at base answers /healthz.
func serving(base string) bool {
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// terminate sends SIGTERM and returns how long the agent took to exit 0.
func (p *agentProcess) terminate(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("agent exited with %v after SIGTERM", p.err)
		}
	case <-time.After(waitLimit):
		t.Fatalf("agent still running %v after SIGTERM", waitLimit)
	}
	return time.Since(start)
}

// TestProcessStopsWithinASecond sends SIGTERM to the real binary while
// each part is stuck in its own way: the API server refuses connections
// (client-go's reflector is in its back-off between watch-list attempts),
// a FIFO sits in the static pod directory, and the runtime never answers a
// CRI call. The agent exits 0 within a second each time, and not through
// its last-resort timeout: every part stopped on its own.
func TestProcessStopsWithinASecond(t *testing.T) {
	bin := buildAgent(t)
	tests := []struct {
		name string
		// setup returns the agent's arguments, and a condition that holds
		// once the agent is in the state to test.
		setup func(t *testing.T) (args []string, ready func(p *agentProcess, base string) bool)
	}{
		{name: "API server unreachable", setup: func(t *testing.T) ([]string, func(*agentProcess, string) bool) {
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			// Nothing listens on a freshly freed port: connections are refused.
			cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://" + freeAddress(t) +
				"\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n"
			if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--api-source=true", "--kubeconfig=" + kubeconfig, "--runtime-endpoint=", "-v=2"}
			return args, func(p *agentProcess, base string) bool {
				// The second back-off waits 1.6 to 3.2 s.
				return strings.Count(p.logs.String(), "watch-list failed - backing off") >= 2
			}
		}},
		{name: "FIFO in the static pod directory", setup: func(t *testing.T) ([]string, func(*agentProcess, string) bool) {
			dir := t.TempDir()
			args := []string{"--static-pod-path=" + dir, "--api-source=false", "--runtime-endpoint="}
			fifo := filepath.Join(dir, "pipe.yaml")
			made := false
			return args, func(p *agentProcess, base string) bool {
				if !made {
					if !serving(base) {
						return false
					}
					// Made while the source watches: the watch event's path.
					if err := syscall.Mkfifo(fifo, 0o644); err != nil {
						t.Fatal(err)
					}
					made = true
				}
				var sources v1alpha1.SourceList
				if err := getJSON(base+"/api/v1alpha1/sources", &sources); err != nil || len(sources.Items) != 1 {
					return false
				}
				for _, r := range sources.Items[0].RejectedFiles {
					if r.Path == fifo && strings.Contains(r.Error, "named pipe") {
						return true
					}
				}
				return false
			}
		}},
		{name: "CRI call hung", setup: func(t *testing.T) ([]string, func(*agentProcess, string) bool) {
			rt := critest.NewForTest(t)
			rt.Hang(critest.MethodListPodSandbox, true)
			rt.Hang(critest.MethodListContainers, true)
			if err := rt.Start(); err != nil {
				t.Fatal(err)
			}
			args := []string{"--api-source=false", "--runtime-endpoint=" + rt.Endpoint()}
			return args, func(*agentProcess, string) bool {
				return rt.Calls(critest.MethodListPodSandbox)+rt.Calls(critest.MethodListContainers) > 0
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, ready := tt.setup(t)
			p, base := startAgent(t, bin, args...)
			await(t, "agent in the state to test", func() bool { return ready(p, base) })
			if d := p.terminate(t); d > time.Second {
				t.Errorf("agent took %v to exit after SIGTERM, want under a second", d)
			}
			if logs := p.logs.String(); strings.Contains(logs, "did not stop in time") {
				t.Errorf("a part of the agent did not stop on its own:\n%s", logs)
			}
		})
	}
}
