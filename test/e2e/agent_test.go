package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/test/cluster"
)

const (
	// The namespace of this test's pods, static and API.
	agentTestNS = "podsrc-e2e-agent"
	// How long a rollout or an agent restart may take to be served again.
	restartTimeout = 3 * time.Minute
)

// TestAgentOnNode deploys the agent once and checks, through the real API
// server, that it reports what the kubelet on the node does: the file, URL
// and API sources, the PLEG, the kubelet's own pod view, the event stream
// across agent restarts, the viewer roles, and the plugin through kubectl.
// The subtests share the agent and run in order; later ones restart it.
// Each area's subtests live in a file of their own: sources_test.go,
// serve_test.go, pleg_test.go, events_test.go, kubeletview_test.go,
// plugin_test.go, podquery_test.go, record_test.go, rbac_test.go and
// restarts_test.go.
func TestAgentOnNode(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	e := &env{c: c, root: root}
	e.plugin = buildPlugin(t, root)
	urls := startURLServer(t, c)
	deploy(t, c, root, e.plugin)
	e.follow(t)
	createNamespace(t, c, agentTestNS)
	t.Cleanup(func() {
		if t.Failed() {
			e.agentLogs(t)
		}
	})

	t.Run("file source", func(t *testing.T) { testFileSource(t, e) })
	t.Run("api source", func(t *testing.T) { testAPISource(t, e) })
	t.Run("what the agent serves", func(t *testing.T) { testServedProjection(t, e) })
	t.Run("pleg", func(t *testing.T) { testPLEG(t, e) })
	t.Run("events", func(t *testing.T) { testEventsHistory(t, e) })
	t.Run("the kubelet's own view", func(t *testing.T) { testAgainstKubelet(t, e) })
	t.Run("plugin through the API server", func(t *testing.T) { testPluginCommands(t, e) })
	t.Run("pod query", func(t *testing.T) { testPodQuery(t, e) })
	t.Run("record, then read offline", func(t *testing.T) { testRecordOffline(t, e) })
	t.Run("rbac", func(t *testing.T) { testRBAC(t, e) })
	t.Run("url source", func(t *testing.T) { testURLSource(t, e, urls) })
	t.Run("watch across the agent pod's recreation", func(t *testing.T) { testWatchAcrossRecreate(t, e) })
	t.Run("kill -9 of the agent", func(t *testing.T) { testKillAgent(t, e) })
	t.Run("rollout restart and kubelet restart", func(t *testing.T) { testRestarts(t, e) })
	t.Run("containerd restart", func(t *testing.T) { testContainerdRestart(t, e) })
	t.Run("upgrade by deploy of a rebuilt image", func(t *testing.T) { testUpgradeAgent(t, e) })
}

// e2eVersion is the release both the plugin and the agent image of these
// tests are built as (the image through hack/image.sh's VERSION), so that
// any version skew warning the plugin prints on the real cluster is a bug.
const e2eVersion = "v0.0.0-e2e"

// buildPlugin builds kubectl-podsrc as e2eVersion into a directory of its
// own, which kubectl's plugin discovery gets on PATH.
func buildPlugin(t *testing.T, root string) string {
	t.Helper()
	plugin := filepath.Join(t.TempDir(), "kubectl-podsrc")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X github.com/podsrc/podsrc/internal/version.Version="+e2eVersion, "-o", plugin, "./cmd/kubectl-podsrc")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-podsrc: %v\n%s", err, out)
	}
	return plugin
}

func staticManifest(c *cluster.Cluster, name, label string, args ...string) []byte {
	a, _ := json.Marshal(args)
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
  labels: {e2e: %q}
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: %s
      imagePullPolicy: Never
      args: %s
`, name, agentTestNS, label, c.TestImage, a))
}

// podsNamed returns the agent's rows of namespace/name, one per source (and
// a runtime-only row, if any).
func podsNamed(l *v1alpha1.PodList, namespace, name string) []v1alpha1.PodInfo {
	var out []v1alpha1.PodInfo
	for _, p := range l.Items {
		if p.Namespace == namespace && p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

func describePods(ps []v1alpha1.PodInfo) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "[%s %s/%s uid=%s hash=%s static=%v mirror=%v runtime=%v] ", p.Source, p.Namespace, p.Name, p.UID, p.ConfigHash, p.Static, p.Mirror, p.Runtime != nil)
	}
	return b.String()
}

func apiPod(c *cluster.Cluster, name string, restart corev1.RestartPolicy, args ...string) *corev1.Pod {
	grace := int64(1)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: agentTestNS, Labels: map[string]string{"e2e": "one"}},
		Spec: corev1.PodSpec{
			NodeName:                      c.NodeName,
			RestartPolicy:                 restart,
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name: "main", Image: c.TestImage, ImagePullPolicy: corev1.PullNever, Args: args,
			}},
		},
	}
}
