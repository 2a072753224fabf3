package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
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
// podsrc computes for its static pod (v1.34 hashes with MD5, v1.36 with
// FNV-128a), with the kubelet's own config hash. The kubelet goes back to
// the cluster's own when the test ends.
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
	image := buildImage(t, root, fmt.Sprint(int(minor)+100))

	undeploy(t, c, plugin)
	c.RunKubelet(t, version)
	t.Cleanup(func() { c.RunKubelet(t, "") })
	poll(t, "node "+c.NodeName+" to report kubelet "+version, func(ctx context.Context) (bool, error) {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, c.NodeName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return n.Status.NodeInfo.KubeletVersion == version, nil
	})

	out, _ := deployImage(t, c, plugin, image)
	wantImage := fmt.Sprintf("kubelet %s, image %s-kubelet1.%d: %s", minor, image, int(minor), c.NodeName)
	if !strings.Contains(out, wantImage) || !strings.Contains(out, "1/1 agents ready") {
		t.Errorf("deploy's output: want %q and 1/1 agents ready", wantImage)
	}

	var sources api.SourceList
	poll(t, "the agent to have read its Node", func(ctx context.Context) (bool, error) {
		if err := agentGet(ctx, c, "sources", &sources); err != nil {
			return false, err
		}
		return sources.NodeKubeletVersion != "", nil
	})
	if sources.NodeKubeletVersion != version || !strings.HasPrefix(sources.KubeletVersion, minor.String()+".") || sources.KubeletSkew != "" {
		t.Errorf("the agent reproduces kubelet %s on a node of kubelet %s, skew %q; want %s, %s and none",
			sources.KubeletVersion, sources.NodeKubeletVersion, sources.KubeletSkew, minor, version)
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
		var list api.PodList
		if err := agentGet(ctx, c, "pods", &list); err != nil {
			return false, err
		}
		static := map[string]api.PodInfo{}
		for _, p := range list.Items {
			if p.Source == api.SourceFile {
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
		var list api.PodList
		if err := agentGet(ctx, c, "pods", &list); err != nil {
			return false, err
		}
		podsrc := agentConfigPods(&list)
		for uid, k := range kubelet {
			if k.Source != api.SourceFile {
				continue
			}
			if podsrc[uid] != k {
				return false, fmt.Errorf("%w: kubelet pod %s %+v, podsrc %+v", errRetry, uid, k, podsrc[uid])
			}
		}
		return true, nil
	})
}
