package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/internal/agentprocess"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestProcessServesAndStopsOnSIGTERM runs the real binary on a manifest
// directory, reads its API and stream over loopback, and stops it with
// SIGTERM while a stream is open: the stream ends cleanly and the process
// exits 0 within a second.
func TestProcessServesAndStopsOnSIGTERM(t *testing.T) {
	bin := agentprocess.Build(t)
	dir := t.TempDir()
	manifest := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: podsrc.local/testimg:v1\n"
	if err := os.WriteFile(filepath.Join(dir, "web.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := agentprocess.FreeAddress(t)
	p := agentprocess.Start(t, bin, "--node-name=node-1", "--static-pod-path="+dir, "--api-source=false",
		"--runtime-endpoint=", "--listen-address="+addr, "--heartbeat=100ms")

	base := "http://" + addr
	var pods v1alpha1.PodList
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, agentprocess.WaitLimit, true, func(context.Context) (bool, error) {
		pods = v1alpha1.PodList{}
		return agentprocess.GetJSON(base+v1alpha1.PodsPath, &pods) == nil && len(pods.Items) == 1, nil
	})
	if err != nil {
		t.Fatalf("the agent never listed the static pod (%v): %+v", err, pods)
	}
	// The kubelet-exact decoder names the pod for the node and hashes its UID.
	if p := pods.Items[0]; p.Name != "web-node-1" || p.Source != v1alpha1.SourceFile || p.ConfigHash != string(p.UID) || len(p.UID) != 32 {
		t.Fatalf("static pod %+v", p)
	}

	resp, err := http.Get(base + v1alpha1.EventsPath + "?since=0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	// The agent's start over its fresh journal, then the static pod's ADD.
	for _, want := range []func(*v1alpha1.Event) bool{
		func(e *v1alpha1.Event) bool {
			return e.Kind == v1alpha1.EventKindBoundary && e.Boundary != nil && e.Boundary.PreviousStop == ""
		},
		func(e *v1alpha1.Event) bool { return e.Op == v1alpha1.OpAdd },
	} {
		var m v1alpha1.StreamMessage
		for m.Type == "" || m.Type == v1alpha1.MessageHeartbeat {
			if !sc.Scan() {
				t.Fatalf("stream ended early: %v", sc.Err())
			}
			m = v1alpha1.StreamMessage{}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("stream message %q: %v", sc.Text(), err)
			}
		}
		if m.Event == nil || !want(m.Event) {
			t.Fatalf("stream message %q, out of order", sc.Text())
		}
	}

	start := time.Now()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		// Only heartbeats may arrive until the stream closes.
		var m v1alpha1.StreamMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Type != v1alpha1.MessageHeartbeat {
			t.Fatalf("stream message %q after SIGTERM: %v", sc.Text(), err)
		}
	}
	// The agent ends the response before it shuts down: a cut connection
	// would end the chunked body unexpectedly.
	if err := sc.Err(); err != nil {
		t.Fatalf("stream ended with %v, want a clean end", err)
	}
	select {
	case <-p.Done():
		if p.Err() != nil {
			t.Fatalf("agent exited with %v after SIGTERM", p.Err())
		}
	case <-time.After(agentprocess.WaitLimit):
		t.Fatal("agent still running after SIGTERM")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("agent took %v to exit after SIGTERM, want under a second", d)
	}
}

// TestProcessRefusesBadFlags checks that a bad value stops the agent at
// start with a message naming the flag.
func TestProcessRefusesBadFlags(t *testing.T) {
	bin := agentprocess.Build(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "mode", args: []string{"--mode=sometimes"}, want: "--mode"},
		{name: "missing kubelet config", args: []string{"--kubelet-config=/nonexistent/config.yaml"}, want: "/nonexistent/config.yaml"},
		{name: "no kubeconfig outside a cluster", args: []string{"--api-source=true"}, want: "--kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--node-name=n", "--runtime-endpoint=", "--listen-address=127.0.0.1:0", "--journal-dir=" + t.TempDir()}, tt.args...)
			if tt.name != "no kubeconfig outside a cluster" {
				args = append(args, "--api-source=false")
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "KUBERNETES_SERVICE_HOST=")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), tt.want) {
				t.Fatalf("got %v, output %q; want exit 1 naming %s", err, out, tt.want)
			}
		})
	}
}
