package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/podsrc/podsrc/test/cluster"
)

// TestPluginCompletion completes through cobra's __complete, as the shells
// and kubectl's plugin completion ask the plugin, against the real API
// server: node names, -n with its namespaces, --context with the
// kubeconfig's contexts.
func TestPluginCompletion(t *testing.T) {
	c := cluster.Get(t)
	plugin := buildPlugin(t, repoRoot(t))
	raw, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"node names", []string{"pods", ""}, c.NodeName},
		{"node names by prefix", []string{"watch", c.NodeName[:3]}, c.NodeName},
		{"namespaces", []string{"pods", c.NodeName, "-n", "kube-"}, "kube-system"},
		{"contexts", []string{"sources", "--context", ""}, raw.CurrentContext},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			args := append([]string{"__complete", "--kubeconfig", c.Kubeconfig, "--cache-dir", t.TempDir()}, tc.args...)
			cmd := exec.CommandContext(ctx, plugin, args...)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", filepath.Base(plugin), strings.Join(args, " "), err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if !slices.Contains(lines, tc.want) || lines[len(lines)-1] != ":4" {
				t.Fatalf("completions %q, want %q among them and no file completion (:4)", lines, tc.want)
			}
		})
	}
}
