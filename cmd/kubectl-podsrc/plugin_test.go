package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestKubectlPluginDiscovery builds kubectl-podsrc, puts it on the PATH and
// runs it as `kubectl podsrc`, as users do.
func TestKubectlPluginDiscovery(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on the PATH (Debian's kubernetes-client package provides it)")
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "kubectl-podsrc"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := httptest.NewServer(fakeagent.New("node-1"))
	defer srv.Close()
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+filepath.Join(dir, "none"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"listed", []string{"plugin", "list"}, filepath.Join(dir, "kubectl-podsrc")},
		{"help says kubectl podsrc", []string{"podsrc", "--help"}, "kubectl podsrc sources node-1"},
		{"client version", []string{"podsrc", "version"}, "Client Version:"},
		{"agent", []string{"podsrc", "sources", "--agent-url", srv.URL, "-o", "jsonpath={.nodeName}"}, "node-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(kubectl, tc.args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(tc.args, " "), err, out)
			}
		})
	}
}
