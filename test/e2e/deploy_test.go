// Package e2e tests podsrc as users deploy it: manifests/daemonset.yaml,
// applied to the real test cluster through test/e2e/overlay (hack/deploy.sh),
// read through the API server's node proxy and with kubectl podsrc.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/test/cluster"
)

// Time limits. The deploy builds the agent (k8s.io/kubernetes inside) with
// CGO_ENABLED=0, which takes minutes on a cold build cache.
const (
	deployTimeout = 20 * time.Minute
	pollTimeout   = 2 * time.Minute
	pollInterval  = 500 * time.Millisecond
	callTimeout   = 30 * time.Second
	// The test's own namespace, for its static pod's mirror pod.
	testNamespace = "podsrc-e2e-deploy"
	staticPodName = "e2e-static"
)

// TestDeploy deploys the agent from manifests/daemonset.yaml and checks,
// through the real API server, that it sees what the kubelet sees.
func TestDeploy(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	deploy(t, c, root)
	agentPod := waitAgentReady(t, c)
	t.Logf("agent pod %s is Ready", agentPod)

	t.Run("sources through the node proxy", func(t *testing.T) {
		var list api.SourceList
		poll(t, "the agent to report the file and api sources as seen", func(ctx context.Context) (bool, error) {
			if err := agentGet(ctx, c, "sources", &list); err != nil {
				return false, err
			}
			file, apiSrc := findSource(list, "file"), findSource(list, "api")
			return file != nil && file.Seen && apiSrc != nil && apiSrc.Seen && list.AllSourcesSeen, nil
		})
		if list.NodeName != c.NodeName {
			t.Errorf("nodeName = %q, want %q", list.NodeName, c.NodeName)
		}
		// The agent reads the directory under /host but names it as the
		// kubelet does: the staticPodPath of the kubelet's configuration.
		if got := findSource(list, "file").Target; got != c.StaticPodDir {
			t.Errorf("file source target = %q, want the kubelet's staticPodPath %q", got, c.StaticPodDir)
		}
	})

	t.Run("a static pod and its mirror pod", func(t *testing.T) {
		createNamespace(t, c, testNamespace)
		c.WriteStaticPod(t, "podsrc-e2e-deploy.yaml", []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: %s
      imagePullPolicy: Never
      args: ["-sleep", "0"]
`, staticPodName, testNamespace, c.TestImage)))
		// The kubelet names a static pod after its node.
		name := staticPodName + "-" + c.NodeName

		var mirrorUID string
		poll(t, "the kubelet to create the mirror pod "+testNamespace+"/"+name, func(ctx context.Context) (bool, error) {
			p, err := c.Client.CoreV1().Pods(testNamespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			mirrorUID = p.Annotations[corev1.MirrorPodAnnotationKey]
			return mirrorUID != "", nil
		})

		var static, mirror *api.PodInfo
		poll(t, "the agent to see the static pod from the file source and its mirror pod from the api source", func(ctx context.Context) (bool, error) {
			var list api.PodList
			if err := agentGet(ctx, c, "pods", &list); err != nil {
				return false, err
			}
			static, mirror = nil, nil
			for i := range list.Items {
				p := &list.Items[i]
				if p.Namespace != testNamespace || p.Name != name {
					continue
				}
				switch p.Source {
				case "file":
					static = p
				case "api":
					mirror = p
				}
			}
			return static != nil && mirror != nil, nil
		})
		if !static.Static {
			t.Errorf("the file source's pod %s is not marked static: %+v", name, *static)
		}
		if string(static.UID) != mirrorUID {
			t.Errorf("the agent's UID of static pod %s is %q; the kubelet's mirror pod says %s=%q", name, static.UID, corev1.MirrorPodAnnotationKey, mirrorUID)
		}
		if !mirror.Mirror || mirror.ConfigMirror != mirrorUID {
			t.Errorf("the api source's pod %s: mirror=%v configMirror=%q, want a mirror pod of %q", name, mirror.Mirror, mirror.ConfigMirror, mirrorUID)
		}
	})

	t.Run("kubectl podsrc sources", func(t *testing.T) {
		plugin := buildPlugin(t, root)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, plugin, "sources", c.NodeName, "--kubeconfig", c.Kubeconfig)
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl podsrc sources %s: %v\n%s", c.NodeName, err, out)
		}
		t.Logf("kubectl podsrc sources %s:\n%s", c.NodeName, out)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 3 {
			t.Fatalf("want a header and one row per source (api, file), got %d lines", len(lines))
		}
		for _, col := range []string{"NODE", "SOURCE", "TARGET", "SEEN", "READY", "PODS"} {
			if !strings.Contains(lines[0], col) {
				t.Errorf("header %q has no %s column", lines[0], col)
			}
		}
		rows := map[string][]string{}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if len(f) < 5 {
				t.Fatalf("short row %q", l)
			}
			rows[f[1]] = f
		}
		for src, target := range map[string]string{"file": c.StaticPodDir, "api": c.Env["API_SERVER"]} {
			f, ok := rows[src]
			switch {
			case !ok:
				t.Errorf("no %s row", src)
			case f[0] != c.NodeName || f[2] != target || f[3] != "true" || f[4] != "true":
				t.Errorf("%s row = %q, want node %s, target %s, seen and ready", src, f, c.NodeName, target)
			}
		}
	})
}

// deploy runs hack/deploy.sh (which builds and imports the image), and
// removes what it made when the test ends unless PODSRC_E2E_KEEP is set.
func deploy(t *testing.T, c *cluster.Cluster, root string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", "deploy.sh"))
	cmd.Dir = root
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hack/deploy.sh: %v\n%s", err, out)
	}
	t.Logf("hack/deploy.sh:\n%s", out)
	if os.Getenv("PODSRC_E2E_KEEP") != "" {
		return
	}
	t.Cleanup(func() { undeploy(t, c) })
}

// undeploy removes the objects of manifests/daemonset.yaml and waits for the
// namespace to go, so that the next deploy does not meet it terminating.
func undeploy(t *testing.T, c *cluster.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	rbac := c.Client.RbacV1()
	for _, name := range []string{"podsrc-agent"} {
		if err := rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ClusterRoleBinding %s: %v", name, err)
		}
	}
	for _, name := range []string{"podsrc-agent", client.PodProxyRole, client.NodeProxyRole} {
		if err := rbac.ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ClusterRole %s: %v", name, err)
		}
	}
	deleteNamespace(ctx, t, c, client.AgentNamespace)
}

// waitAgentReady waits for the agent's pod on the node to be Ready and
// returns its name.
func waitAgentReady(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	var name string
	poll(t, "the agent pod on "+c.NodeName+" to be Ready", func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: client.AgentSelector,
			FieldSelector: "spec.nodeName=" + c.NodeName,
		})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					name = p.Name
					return true, nil
				}
			}
		}
		return false, nil
	})
	return name
}

// agentGet reads /api/v1alpha1/<path> of the node's agent through the API
// server's node proxy, as kubectl podsrc does by default.
func agentGet(ctx context.Context, c *cluster.Cluster, path string, into any) error {
	body, err := c.Client.CoreV1().RESTClient().Get().
		AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", c.NodeName, client.DefaultAgentPort), "proxy", client.APIPrefix, path).
		Timeout(callTimeout).
		DoRaw(ctx)
	if err != nil {
		// The agent may be restarting; the poll tries again.
		return fmt.Errorf("%w: GET %s through the node proxy: %v: %s", errRetry, path, err, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("decoding %s: %w: %s", path, err, body)
	}
	return nil
}

// errRetry marks errors a poll retries until its deadline.
var errRetry = errors.New("retrying")

// poll calls cond until it returns true, failing the test after pollTimeout
// or on an error not marked with errRetry; the last error is reported.
func poll(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if errors.Is(err, errRetry) {
			last = err
			return false, nil
		}
		return ok, err
	})
	if err != nil {
		if last != nil {
			t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
		}
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func findSource(l api.SourceList, name string) *api.Source {
	for i := range l.Items {
		if l.Items[i].Name == name {
			return &l.Items[i]
		}
	}
	return nil
}

// createNamespace creates a namespace for the test and deletes it at the end.
func createNamespace(t *testing.T, c *cluster.Cluster, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	// A previous run's namespace may still be terminating.
	deleteNamespace(ctx, t, c, name)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
		defer cancel()
		deleteNamespace(ctx, t, c, name)
	})
}

// deleteNamespace deletes a namespace and waits until it is gone.
func deleteNamespace(ctx context.Context, t *testing.T, c *cluster.Cluster, name string) {
	t.Helper()
	nss := c.Client.CoreV1().Namespaces()
	if err := nss.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting namespace %s: %v", name, err)
		return
	}
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		_, err := nss.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Errorf("waiting for namespace %s to be deleted: %v", name, err)
	}
}

// repoRoot is the root module's directory, above this package's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hack", "deploy.sh")); err != nil {
		t.Fatalf("the repository root above %s has no hack/deploy.sh: %v", dir, err)
	}
	return dir
}
