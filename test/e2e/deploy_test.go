// Package e2e tests podsrc as users deploy it: kubectl podsrc deploy on the
// real test cluster, whose non-standard layout it finds through the
// kubelet's /configz, read through the API server's node proxy and with
// kubectl podsrc.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	pkgdeploy "github.com/podsrc/podsrc/pkg/deploy"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
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

// TestDeploy runs kubectl podsrc deploy from nothing and checks, through
// the real API server, that the agent finds the test cluster's layout
// through /configz and sees what the kubelet sees; that a second deploy
// changes nothing, a new image rolls out, undeploy leaves nothing, and that
// a caller with fewer rights gets the fallback layout and a clear error
// with nothing half-applied.
func TestDeploy(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	plugin := buildPlugin(t, root)
	image := buildImage(t, root)
	undeploy(t, c, plugin)
	assertNothingLeft(t, c)

	t.Run("a caller without nodes/proxy and without rights to create", func(t *testing.T) {
		user := limitedUser(t, c)
		// The user may not read the API server's addresses either: it names
		// the peers the agents answer.
		allowed := "--allowed-cidrs=" + c.NodeIP
		out, errOut, err := runDeploy(t, c, plugin, "deploy", "--image="+image, "--as="+user, "--print-only", allowed)
		if err != nil {
			t.Fatalf("deploy --print-only as %s: %v\n%s", user, err, errOut)
		}
		wantWarning := "Warning: could not read the kubelet configuration of node " + c.NodeName
		if !strings.Contains(errOut, wantWarning) || !strings.Contains(errOut, "(forbidden: you may not get nodes/proxy); assumed the layout of kubeadm or kind with containerd") || !strings.Contains(errOut, "--static-pod-path and --runtime-endpoint") {
			t.Errorf("stderr %q: want %q, the layout assumed and how to override it", errOut, wantWarning)
		}
		if !strings.Contains(out, "--static-pod-path=/etc/kubernetes/manifests") {
			t.Errorf("--print-only does not show the assumed kubeadm layout:\n%s", out)
		}
		out, errOut, err = runDeploy(t, c, plugin, "deploy", "--image="+image, "--as="+user, allowed)
		t.Logf("deploy as %s: %v\n%s%s", user, err, out, errOut)
		if err == nil {
			t.Fatalf("deploy as %s, who may not create anything, succeeded", user)
		}
		for _, want := range []string{`get, create, patch namespaces "podsrc-system"`, `get, create, patch clusterroles.rbac.authorization.k8s.io "podsrc-agent"`, `get, create, patch daemonsets.apps "podsrc-agent" in namespace podsrc-system`, "nothing was changed"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("the error does not name %q:\n%s", want, errOut)
			}
		}
		assertNothingLeft(t, c)
	})

	out, errOut := deployImage(t, c, plugin, image)
	// The layout comes from the kubelet's /configz: nothing assumed.
	wantLayout := fmt.Sprintf("layout podsrc-agent (static pods %s, CRI %s), kubelet %s, image %s: %s and nodes added later", c.StaticPodDir, c.CRIEndpoint, cluster.KubeletMinor, clusterImage(t, image), c.NodeName)
	if !strings.Contains(out, wantLayout) || strings.Contains(errOut, "Warning") || !strings.Contains(out, "1/1 agents ready") {
		t.Errorf("deploy's output: want %q, 1/1 agents ready and no warning", wantLayout)
	}
	// The agents answer the API server's address only, and say so (the
	// test cluster's API server publishes no EndpointSlices, so runDeploy
	// names it).
	if want := "agents answer only " + c.NodeIP + " (--allowed-cidrs)"; !strings.Contains(out, want) {
		t.Errorf("deploy's output: want %q", want)
	}
	agentPod := waitAgentReady(t, c)
	t.Logf("agent pod %s is Ready", agentPod)

	t.Run("sources through the node proxy", func(t *testing.T) {
		var list v1alpha1.SourceList
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
		c.WriteStaticPod(t, "podsrc-e2e-deploy.yaml", sleepingStaticPod(c, testNamespace, staticPodName))
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

		var static, mirror *v1alpha1.PodInfo
		poll(t, "the agent to see the static pod from the file source and its mirror pod from the api source", func(ctx context.Context) (bool, error) {
			var list v1alpha1.PodList
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
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, plugin, "sources", c.NodeName, "--kubeconfig", c.Kubeconfig)
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl podsrc sources %s: %v\n%s", c.NodeName, err, out)
		}
		t.Logf("kubectl podsrc sources %s:\n%s", c.NodeName, out)
		if strings.Contains(string(out), "Warning:") {
			t.Errorf("the plugin and the agent are both %s on a kubelet of the minor podsrc reproduces, yet the plugin warns", e2eVersion)
		}
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

	t.Run("a second deploy changes nothing", func(t *testing.T) {
		before := objectVersions(t, c)
		out, errOut, err := runDeploy(t, c, plugin, "deploy", "--image="+image)
		if err != nil {
			t.Fatalf("second deploy: %v\n%s%s", err, out, errOut)
		}
		if strings.Contains(out, " configured") || strings.Contains(out, " created") {
			t.Errorf("the second deploy says it changed something:\n%s", out)
		}
		if diff := cmp.Diff(before, objectVersions(t, c)); diff != "" {
			t.Errorf("resource versions changed (-before +after):\n%s", diff)
		}
	})

	t.Run("a new image rolls out in place", func(t *testing.T) {
		ds0, err := c.Client.AppsV1().DaemonSets(client.AgentNamespace).Get(context.Background(), "podsrc-agent", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		const next = "podsrc.local/podsrc-agent:e2e-next"
		tagImage(t, c, clusterImage(t, image), clusterImage(t, next))
		out, errOut, err := runDeploy(t, c, plugin, "deploy", "--image="+next)
		if err != nil {
			t.Fatalf("deploy --image=%s: %v\n%s%s", next, err, out, errOut)
		}
		if !strings.Contains(out, "daemonset.apps/podsrc-agent configured") || !strings.Contains(out, "1/1 agents ready") {
			t.Errorf("deploy of a new image:\n%s", out)
		}
		pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: client.AgentSelector})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Spec.Containers[0].Image != clusterImage(t, next) {
				t.Errorf("agent pod %s runs %s after the rollout of %s", p.Name, p.Spec.Containers[0].Image, clusterImage(t, next))
			}
		}
		ds1, err := c.Client.AppsV1().DaemonSets(client.AgentNamespace).Get(context.Background(), "podsrc-agent", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds1.UID != ds0.UID {
			t.Errorf("the DaemonSet was replaced (UID %s -> %s), not updated in place", ds0.UID, ds1.UID)
		}
	})

	t.Run("undeploy leaves nothing", func(t *testing.T) {
		out, errOut, err := runDeploy(t, c, plugin, "undeploy")
		if err != nil {
			t.Fatalf("undeploy: %v\n%s%s", err, out, errOut)
		}
		for _, want := range deployedObjects {
			if !strings.Contains(out, want.describe+" deleted") {
				t.Errorf("undeploy does not say it removed %s:\n%s", want.describe, out)
			}
		}
		assertNothingLeft(t, c)
		out, _, err = runDeploy(t, c, plugin, "undeploy")
		if err != nil || !strings.Contains(out, "nothing to remove") {
			t.Errorf("a second undeploy: %v\n%s", err, out)
		}
	})
}

// sleepingStaticPod is the manifest of a static pod whose one container
// runs until stopped.
func sleepingStaticPod(c *cluster.Cluster, namespace, name string) []byte {
	return sleepingStaticPodWith(c, namespace, name, "", "")
}

// sleepingStaticPodWith is sleepingStaticPod with more lines: spec's at the
// start of the pod's spec, container's at the end of its container, each
// line indented for its place.
func sleepingStaticPodWith(c *cluster.Cluster, namespace, name, spec, container string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
spec:
%s  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: %s
      imagePullPolicy: Never
      args: ["-sleep", "0"]
%s`, name, namespace, spec, c.TestImage, container))
}

// deploy builds the agent image (hack/image.sh imports it into the node's
// containerd) and runs kubectl podsrc deploy with it, and undeploys when the
// test ends unless PODSRC_E2E_KEEP is set. It returns the image.
func deploy(t *testing.T, c *cluster.Cluster, root, plugin string) string {
	t.Helper()
	image := buildImage(t, root)
	deployImage(t, c, plugin, image)
	return image
}

// deployImage runs kubectl podsrc deploy --image=image, and undeploys when
// the test ends unless PODSRC_E2E_KEEP is set; it returns deploy's stdout
// and stderr.
func deployImage(t *testing.T, c *cluster.Cluster, plugin, image string) (string, string) {
	t.Helper()
	out, errOut, err := runDeploy(t, c, plugin, "deploy", "--image="+image)
	if err != nil {
		t.Fatalf("kubectl podsrc deploy: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	t.Logf("kubectl podsrc deploy:\n%s%s", out, errOut)
	if os.Getenv("PODSRC_E2E_KEEP") == "" {
		t.Cleanup(func() { undeploy(t, c, plugin) })
	}
	return out, errOut
}

// agentMinor spells minor m as PODSRC_AGENT_MINORS takes it: 134 for
// v1.34.
func agentMinor(m kubeletminor.Minor) string { return fmt.Sprintf("1%d", int(m)) }

// clusterImage is the image deploy gives the cluster's first node for
// --image=base: that of the cluster's kubelet minor.
func clusterImage(t *testing.T, base string) string {
	t.Helper()
	image, err := pkgdeploy.ImageFor(base, cluster.KubeletMinor)
	if err != nil {
		t.Fatal(err)
	}
	return image
}

// buildImage builds the agent's images, for the cluster's kubelet minor
// (cluster.KubeletMinor) and the other minors given (such as "134"), imports them into the node's containerd, and
// returns the reference kubectl podsrc deploy --image takes.
func buildImage(t *testing.T, root string, minors ...string) string {
	t.Helper()
	return buildImageAs(t, root, e2eVersion, minors...)
}

// buildImageAs is buildImage of the agent as version.
func buildImageAs(t *testing.T, root, version string, minors ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", "image.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VERSION="+version, "PODSRC_AGENT_MINORS="+strings.Join(append(minors, agentMinor(cluster.KubeletMinor)), " "))
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/image.sh: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// runDeploy runs the plugin's deploy or undeploy (args[0]) against the
// cluster; deploy gets the API server's address, since the node has no
// kube-proxy to route the kubernetes Service's.
func runDeploy(t *testing.T, c *cluster.Cluster, plugin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args = append(args, "--kubeconfig="+c.Kubeconfig, "--timeout=3m")
	if args[0] == "deploy" {
		// The test cluster keeps its static pods and CRI socket where no
		// kubelet distribution does: deploy mounts them only when told.
		// Its API server publishes no EndpointSlices of its own, so the
		// address its node proxy comes from is told too.
		args = append(args, "--api-server-url="+c.Env["API_SERVER"],
			"--allow-host-path="+c.StaticPodDir, "--allow-host-path="+filepath.Dir(c.Env["CONTAINERD_SOCKET"]))
		if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--allowed-cidrs=") }) {
			args = append(args, "--allowed-cidrs="+c.Env["NODE_IP"])
		}
	}
	cmd := exec.CommandContext(ctx, plugin, args...)
	cmd.WaitDelay = 10 * time.Second
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// undeploy runs kubectl podsrc undeploy, which waits for the namespace to
// go, so that the next deploy does not meet it terminating.
func undeploy(t *testing.T, c *cluster.Cluster, plugin string) {
	out, errOut, err := runDeploy(t, c, plugin, "undeploy")
	if err != nil {
		t.Errorf("kubectl podsrc undeploy: %v\n%s%s", err, out, errOut)
	}
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
	return agentGetOn(ctx, c, c.NodeName, path, into)
}

// agentGetOn is agentGet of the agent on node.
func agentGetOn(ctx context.Context, c *cluster.Cluster, node, path string, into any) error {
	return agentRawGetOn(ctx, c, node, v1alpha1.APIPrefix+"/"+path, into)
}

// agentRawGetOn is agentGetOn for a path outside the versioned API, such
// as v1alpha1.VersionPath.
func agentRawGetOn(ctx context.Context, c *cluster.Cluster, node, path string, into any) error {
	body, err := c.Client.CoreV1().RESTClient().Get().
		AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", node, v1alpha1.DefaultAgentPort), "proxy", path).
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

func findSource(l v1alpha1.SourceList, name string) *v1alpha1.Source {
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

// deployedObjects are the objects deploy makes on the single-node test
// cluster, as undeploy names them.
var deployedObjects = []struct {
	describe string
	get      func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error)
}{
	{"daemonset.apps/podsrc-agent", func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.AppsV1().DaemonSets(client.AgentNamespace).Get(ctx, "podsrc-agent", metav1.GetOptions{})
	}},
	{"clusterrolebinding.rbac.authorization.k8s.io/podsrc-agent", func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.RbacV1().ClusterRoleBindings().Get(ctx, "podsrc-agent", metav1.GetOptions{})
	}},
	{"clusterrole.rbac.authorization.k8s.io/podsrc-agent", func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.RbacV1().ClusterRoles().Get(ctx, "podsrc-agent", metav1.GetOptions{})
	}},
	{"clusterrole.rbac.authorization.k8s.io/" + client.PodProxyRole, func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.RbacV1().ClusterRoles().Get(ctx, client.PodProxyRole, metav1.GetOptions{})
	}},
	{"clusterrole.rbac.authorization.k8s.io/" + client.NodeProxyRole, func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.RbacV1().ClusterRoles().Get(ctx, client.NodeProxyRole, metav1.GetOptions{})
	}},
	{"serviceaccount/podsrc-agent", func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.CoreV1().ServiceAccounts(client.AgentNamespace).Get(ctx, "podsrc-agent", metav1.GetOptions{})
	}},
	{"namespace/" + client.AgentNamespace, func(ctx context.Context, c *cluster.Cluster) (metav1.Object, error) {
		return c.Client.CoreV1().Namespaces().Get(ctx, client.AgentNamespace, metav1.GetOptions{})
	}},
}

// objectVersions maps each deployed object to its resourceVersion ("" when
// it does not exist).
func objectVersions(t *testing.T, c *cluster.Cluster) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out := map[string]string{}
	for _, o := range deployedObjects {
		obj, err := o.get(ctx, c)
		switch {
		case apierrors.IsNotFound(err):
			out[o.describe] = ""
		case err != nil:
			t.Fatalf("reading %s: %v", o.describe, err)
		default:
			out[o.describe] = obj.GetResourceVersion()
		}
	}
	return out
}

// assertNothingLeft checks, object by object, that nothing of deploy's is
// in the cluster, and no agent pod either.
func assertNothingLeft(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	for name, rv := range objectVersions(t, c) {
		if rv != "" {
			t.Errorf("%s exists (resourceVersion %s)", name, rv)
		}
	}
	pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: client.AgentSelector})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) > 0 {
		t.Errorf("%d agent pods are left", len(pods.Items))
	}
}

// limitedUser makes a user who may get and list nodes and nothing else of
// podsrc's (not nodes/proxy, not create), for kubectl --as.
func limitedUser(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	const name = "podsrc-e2e-limited"
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	rbac := c.Client.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list"}}}}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: name}},
	}
	_ = rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	_ = rbac.ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ClusterRole %s: %v", name, err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ClusterRoleBinding %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		_ = rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = rbac.ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name
}

// tagImage gives image another name in the node's containerd, a new image
// to the DaemonSet.
func tagImage(t *testing.T, c *cluster.Cluster, image, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Env["CTR"], "--address", c.Env["CONTAINERD_SOCKET"], "-n", "k8s.io", "images", "tag", "--force", image, name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctr images tag %s %s: %v\n%s", image, name, err, out)
	}
	return name
}

// repoRoot is the root module's directory, above this package's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hack", "image.sh")); err != nil {
		t.Fatalf("the repository root above %s has no hack/image.sh: %v", dir, err)
	}
	return dir
}
