package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/test/cluster"
)

// olderKubeletEnv names the kubelet version TestOlderKubelet runs the node
// with; the test is skipped without it.
const olderKubeletEnv = "PODSRC_E2E_OLDER_KUBELET"

// olderNamespace is TestOlderKubelet's namespace, for its static pods'
// mirror pods.
const olderNamespace = "podsrc-e2e-older"

// TestOlderKubelet runs the node's kubelet as an older minor (v1.34.4, set
// in PODSRC_E2E_OLDER_KUBELET) and deploys podsrc as a user would: deploy
// gives the node the agent of that minor, which reports no skew, and every
// mirror pod on the node carries in kubernetes.io/config.mirror the UID
// podsrc computes for its static pod (v1.34 hashes with MD5, v1.35 and
// later with FNV-128a), with the kubelet's own config hash; pods -o wide
// says so. Then the agent of the cluster's own minor replaces it and reports its skew everywhere. The kubelet
// goes back to the cluster's own when the test ends, and the test waits for
// the Node to report that version again.
//
// It is gated: the first run builds another kubelet and that minor's agent
// (minutes each when cold), and it restarts the shared cluster's kubelet
// twice.
func TestOlderKubelet(t *testing.T) {
	version := os.Getenv(olderKubeletEnv)
	if version == "" {
		t.Skipf("set %s=v1.34.4 to run the node with that kubelet (builds it on first use)", olderKubeletEnv)
	}
	minor, err := kubeletminor.Parse(version)
	if err != nil {
		t.Fatalf("%s: %v", olderKubeletEnv, err)
	}
	c := cluster.Get(t)
	root := repoRoot(t)
	plugin := buildPlugin(t, root)
	image := buildImage(t, root, agentMinor(minor))

	undeploy(t, c, plugin)
	own := nodeKubeletVersion(t, c)
	c.RunKubelet(t, version)
	// The next test must not see the older kubelet, nor start an agent
	// that the skew check keeps not ready: the cleanup waits for the Node
	// to report the cluster's own kubelet again.
	t.Cleanup(func() {
		c.RunKubelet(t, "")
		awaitNodeKubelet(t, c, own)
	})
	awaitNodeKubelet(t, c, version)

	out, _ := deployImage(t, c, plugin, image)
	wantImage := fmt.Sprintf("kubelet %s, image %s-kubelet1.%d: %s", minor, image, int(minor), c.NodeName)
	if !strings.Contains(out, wantImage) || !strings.Contains(out, "1/1 agents ready") {
		t.Errorf("deploy's output: want %q and 1/1 agents ready", wantImage)
	}

	var sources v1alpha1.SourceList
	poll(t, "the agent to have read its Node", func(ctx context.Context) (bool, error) {
		if err := agentGet(ctx, c, "sources", &sources); err != nil {
			return false, err
		}
		return sources.NodeKubeletVersion != "", nil
	})
	if sources.NodeKubeletVersion != version || !strings.HasPrefix(sources.ReproducedKubeletVersion, minor.String()+".") || sources.KubeletSkew != "" {
		t.Errorf("the agent reproduces kubelet %s on a node of kubelet %s, skew %q; want %s, %s and none",
			sources.ReproducedKubeletVersion, sources.NodeKubeletVersion, sources.KubeletSkew, minor, version)
	}

	createNamespace(t, c, olderNamespace)
	// Two static pods: one bare, one with what defaulting fills in
	// differently (a probe, an init container, resources).
	names := []string{"older-plain", "older-defaults"}
	c.WriteStaticPod(t, "podsrc-e2e-older-plain.yaml", sleepingStaticPod(c, olderNamespace, names[0]))
	c.WriteStaticPod(t, "podsrc-e2e-older-defaults.yaml", []byte(fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
  labels: {app: older}
spec:
  terminationGracePeriodSeconds: 1
  initContainers:
    - name: init
      image: %s
      imagePullPolicy: Never
      args: ["-exit", "0"]
  containers:
    - name: main
      image: %s
      imagePullPolicy: Never
      args: ["-sleep", "0", "-listen", ":8080"]
      resources: {limits: {memory: 64Mi}}
      readinessProbe: {tcpSocket: {port: 8080}}
`, names[1], olderNamespace, c.TestImage, c.TestImage)))

	// Every mirror pod on the node, the test's and any other, against the
	// agent's static pods.
	var checked map[string]string
	var mismatch []string
	poll(t, "every mirror pod's config.mirror to equal podsrc's UID of its static pod", func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + c.NodeName})
		if err != nil {
			return false, err
		}
		var list v1alpha1.PodList
		if err := agentGet(ctx, c, "pods", &list); err != nil {
			return false, err
		}
		static := map[string]v1alpha1.PodInfo{}
		for _, p := range list.Items {
			if p.Source == v1alpha1.SourceFile {
				static[p.Namespace+"/"+p.Name] = p
			}
		}
		checked, mismatch = map[string]string{}, nil
		for _, p := range pods.Items {
			mirror, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
			if !ok || p.DeletionTimestamp != nil {
				continue
			}
			key := p.Namespace + "/" + p.Name
			s, ok := static[key]
			switch {
			case !ok:
				mismatch = append(mismatch, key+": podsrc has no static pod")
			case string(s.UID) != mirror:
				mismatch = append(mismatch, fmt.Sprintf("%s: config.mirror %s, podsrc %s", key, mirror, s.UID))
			default:
				checked[key] = mirror
			}
		}
		for _, n := range names {
			if _, ok := checked[olderNamespace+"/"+n+"-"+c.NodeName]; !ok {
				return false, fmt.Errorf("%w: no matching mirror pod of %s yet; mismatches: %v", errRetry, n, mismatch)
			}
		}
		return len(mismatch) == 0, nil
	})
	t.Logf("mirror pods whose config.mirror equals podsrc's UID on a kubelet %s node: %v", version, checked)

	// The kubelet's own pods (its /pods) have the UIDs and config hashes
	// podsrc computes.
	poll(t, "the kubelet's static pods to equal podsrc's", func(ctx context.Context) (bool, error) {
		kubelet, err := kubeletPods(ctx, c)
		if err != nil {
			return false, fmt.Errorf("%w: %v", errRetry, err)
		}
		var list v1alpha1.PodList
		if err := agentGet(ctx, c, "pods", &list); err != nil {
			return false, err
		}
		podsrc := agentConfigPods(&list)
		for uid, k := range kubelet {
			if k.Source != v1alpha1.SourceFile {
				continue
			}
			if podsrc[uid] != k {
				return false, fmt.Errorf("%w: kubelet pod %s %+v, podsrc %+v", errRetry, uid, k, podsrc[uid])
			}
		}
		return true, nil
	})

	// pods -o wide shows that the kubelet's UID of each static pod is
	// podsrc's.
	for _, n := range names {
		if row := pluginLine(t, c, plugin, n+"-"+c.NodeName, "pods", c.NodeName, "-n", olderNamespace, "-o", "wide"); !strings.Contains(row, "same (mirror)") {
			t.Errorf("pods -o wide: the row of %s does not say the kubelet's UID is the same: %q", n, row)
		}
	}

	// The agent of the cluster's minor on this node is skewed, and says so: /sources and
	// /readyz (not ready), every plugin command, and pods -o wide, where
	// the kubelet's UIDs differ from the ones it computes.
	patchCtx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":%q}]}}}}`, clusterImage(t, image))
	if _, err := c.Client.AppsV1().DaemonSets(client.AgentNamespace).Patch(patchCtx, "podsrc-agent", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("running the %s agent on the node: %v", cluster.KubeletMinor, err)
	}
	poll(t, "the "+cluster.KubeletMinor.String()+" agent to report its skew", func(ctx context.Context) (bool, error) {
		if err := agentGet(ctx, c, "sources", &sources); err != nil {
			return false, err
		}
		return strings.HasPrefix(sources.ReproducedKubeletVersion, cluster.KubeletMinor.String()+".") && sources.KubeletSkew != "", nil
	})
	wantSkew := "the node runs kubelet " + version + " but this agent reproduces kubelet " + sources.ReproducedKubeletVersion
	if !strings.HasPrefix(sources.KubeletSkew, wantSkew) || !strings.Contains(sources.KubeletSkew, "run kubectl podsrc deploy") {
		t.Errorf("kubeletSkew %q, want it to start with %q and say what to run", sources.KubeletSkew, wantSkew)
	}
	readyzCtx, cancelReadyz := context.WithTimeout(context.Background(), callTimeout)
	defer cancelReadyz()
	readyz, err := c.Client.CoreV1().RESTClient().Get().
		AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", c.NodeName, v1alpha1.DefaultAgentPort), "proxy", "readyz").DoRaw(readyzCtx)
	if err == nil || !strings.Contains(string(readyz), wantSkew) {
		t.Errorf("/readyz of the skewed agent: %v %q, want 503 saying %q", err, readyz, wantSkew)
	}
	if _, errOut := runPlugin(t, c, plugin, "sources", c.NodeName); !strings.Contains(errOut, "Warning: node "+c.NodeName+" runs kubelet "+version+", but its agent reproduces kubelet "+cluster.KubeletMinor.String()) {
		t.Errorf("kubectl podsrc sources on the skewed node warns %q", errOut)
	}
	// The kubelet's UID comes from the runtime's sandbox until the new
	// agent's API source has the mirror pod: either is flagged.
	for _, n := range names {
		if row := pluginLine(t, c, plugin, n+"-"+c.NodeName, "pods", c.NodeName, "-n", olderNamespace, "-o", "wide"); !strings.Contains(row, ", differs)") {
			t.Errorf("pods -o wide of the skewed agent: the row of %s does not flag the kubelet's UID: %q", n, row)
		}
	}
}

// runPlugin runs kubectl podsrc against the cluster and returns its stdout
// and stderr; it fails the test when the command fails.
func runPlugin(t *testing.T, c *cluster.Cluster, plugin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, plugin, append(args, "--kubeconfig="+c.Kubeconfig)...)
	cmd.WaitDelay = 5 * time.Second
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl podsrc %s: %v\n%s%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String(), e.String()
}

// pluginLine returns the first line of kubectl podsrc's output that
// contains want (the static pod's row of the file source), or "".
func pluginLine(t *testing.T, c *cluster.Cluster, plugin, want string, args ...string) string {
	t.Helper()
	out, _ := runPlugin(t, c, plugin, args...)
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, want) && strings.Contains(l, " file ") {
			return l
		}
	}
	t.Logf("kubectl podsrc %s:\n%s", strings.Join(args, " "), out)
	return ""
}

// nodeKubeletVersion returns the kubelet version the test node's Node
// reports.
func nodeKubeletVersion(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
	defer cancel()
	n, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading node %s's kubelet version: %v", c.NodeName, err)
	}
	return n.Status.NodeInfo.KubeletVersion
}

// awaitNodeKubelet waits (at most pollTimeout) until the test node's Node
// reports kubelet version.
func awaitNodeKubelet(t *testing.T, c *cluster.Cluster, version string) {
	t.Helper()
	poll(t, "node "+c.NodeName+" to report kubelet "+version, func(ctx context.Context) (bool, error) {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("%w: reading node %s: %v", errRetry, c.NodeName, err)
		}
		return n.Status.NodeInfo.KubeletVersion == version, nil
	})
}
