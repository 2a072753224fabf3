package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/agentprocess"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri/critest"
)

// TestProcessStopsWithinASecond sends SIGTERM to the real binary while
// each part is stuck in its own way: the API server refuses connections
// (client-go's reflector is in its back-off between watch-list attempts),
// a FIFO sits in the static pod directory, and the runtime never answers a
// CRI call. The agent exits 0 within a second each time, and not through
// its last-resort timeout: every part stopped on its own.
func TestProcessStopsWithinASecond(t *testing.T) {
	bin := agentprocess.Build(t)
	tests := []struct {
		name string
		// setup returns the agent's arguments, and a condition that holds
		// once the agent is in the state to test.
		setup func(t *testing.T) (args []string, ready func(p *agentprocess.Process, base string) bool)
	}{
		{name: "API server unreachable", setup: func(t *testing.T) ([]string, func(*agentprocess.Process, string) bool) {
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			// Nothing listens on a freshly freed port: connections are refused.
			cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://" + agentprocess.FreeAddress(t) +
				"\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n"
			if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--api-source=true", "--kubeconfig=" + kubeconfig, "--runtime-endpoint=", "-v=2"}
			return args, func(p *agentprocess.Process, base string) bool {
				// The second back-off waits 1.6 to 3.2 s.
				return strings.Count(p.Logs(), "watch-list failed - backing off") >= 2
			}
		}},
		{name: "FIFO in the static pod directory", setup: func(t *testing.T) ([]string, func(*agentprocess.Process, string) bool) {
			dir := t.TempDir()
			args := []string{"--static-pod-path=" + dir, "--api-source=false", "--runtime-endpoint="}
			fifo := filepath.Join(dir, "pipe.yaml")
			made := false
			return args, func(p *agentprocess.Process, base string) bool {
				if !made {
					if !agentprocess.Serving(base) {
						return false
					}
					// Made while the source watches: the watch event's path.
					if err := syscall.Mkfifo(fifo, 0o644); err != nil {
						t.Fatal(err)
					}
					made = true
				}
				var sources v1alpha1.SourceList
				if err := agentprocess.GetJSON(base+"/api/v1alpha1/sources", &sources); err != nil || len(sources.Items) != 1 {
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
		{name: "CRI call hung", setup: func(t *testing.T) ([]string, func(*agentprocess.Process, string) bool) {
			rt := critest.NewForTest(t)
			rt.Hang(critest.MethodListPodSandbox, true)
			rt.Hang(critest.MethodListContainers, true)
			if err := rt.Start(); err != nil {
				t.Fatal(err)
			}
			args := []string{"--api-source=false", "--runtime-endpoint=" + rt.Endpoint()}
			return args, func(*agentprocess.Process, string) bool {
				return rt.Calls(critest.MethodListPodSandbox)+rt.Calls(critest.MethodListContainers) > 0
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, ready := tt.setup(t)
			p, base := agentprocess.StartServing(t, bin, args...)
			agentprocess.Await(t, "agent in the state to test", func() bool { return ready(p, base) })
			if d := p.Terminate(t); d > time.Second {
				t.Errorf("agent took %v to exit after SIGTERM, want under a second", d)
			}
			if logs := p.Logs(); strings.Contains(logs, "did not stop in time") {
				t.Errorf("a part of the agent did not stop on its own:\n%s", logs)
			}
		})
	}
}
