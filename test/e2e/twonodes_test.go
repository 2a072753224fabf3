package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/test/cluster"
)

// twoNodesNS is TestTwoNodes's namespace, for its pods and mirror pods.
const twoNodesNS = "podsrc-e2e-two"

// TestTwoNodes runs podsrc on two real nodes at once. The second node is
// laid out unlike the first (RKE2-like paths), runs kubelet v1.34.4 beside
// the first's (cluster.KubeletVersion), and keeps its runtime's state under a private mount,
// where a HostToContainer mount is refused.
//
// Deploy to the first node alone, then start the second: the default
// DaemonSet covers it, with the first node's layout and minor, and every
// command reports that agent's skew for the second node only. Deploy again:
// two DaemonSets, one per layout and minor, both agents ready. Then the
// fan-out over both (sources, pods, pleg: one header, each node's own
// paths), each agent against its own kubelet (testOwnMinor), an archive of
// each node read offline as live, watch --all-nodes (a manifest on the
// second node, a container exit on the first, each node in its colour), why
// on each node's broken manifest, a node whose agent is gone named while the
// other prints, and undeploy removing both DaemonSets.
func TestTwoNodes(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	plugin := buildPlugin(t, root)
	image := buildImage(t, root, "134")
	undeploy(t, c, plugin)

	deployImage(t, c, plugin, image)
	n2 := c.StartNode2(t)
	// Made after the second node, so that it is deleted while that node
	// still runs its pods.
	createNamespace(t, c, twoNodesNS)

	t.Run("the default DaemonSet covers the node added later, and its skew is reported for it alone", func(t *testing.T) {
		var sources v1alpha1.SourceList
		poll(t, "the default agent on "+n2.Name+" to report its skew", func(ctx context.Context) (bool, error) {
			if err := agentGetOn(ctx, c, n2.Name, "sources", &sources); err != nil {
				return false, err
			}
			return sources.KubeletSkew != "", nil
		})
		_, errOut, _ := runPluginExit(t, c, plugin, "sources", "--all-nodes")
		want := "Warning: node " + n2.Name + " runs kubelet " + n2.KubeletVersion + ", but its agent reproduces kubelet " + cluster.KubeletMinor.String()
		if !strings.Contains(errOut, want) || strings.Contains(errOut, "node "+c.NodeName+" runs") {
			t.Errorf("sources --all-nodes warns %q; want %q, and nothing of %s", errOut, want, c.NodeName)
		}
	})

	deployed := t.Run("deploy again: one DaemonSet per layout and minor", func(t *testing.T) {
		args := []string{"deploy", "--image=" + image,
			"--allow-host-path=" + n2.StaticPodDir, "--allow-host-path=" + filepath.Dir(strings.TrimPrefix(n2.CRIEndpoint, "unix://"))}
		// One node of each layout: nodes added later get the one deploy
		// is told, and it says so rather than choose.
		_, errOut, err := runDeploy(t, c, plugin, append(args, "--print-only")...)
		if want := "say which with --default-layout=NODE"; err == nil || !strings.Contains(errOut, want) {
			t.Errorf("deploy with two layouts of one node each: %v, stderr %q; want an error saying %q", err, errOut, want)
		}
		out, errOut, err := runDeploy(t, c, plugin, append(args, "--default-layout="+c.NodeName)...)
		if err != nil {
			t.Fatalf("kubectl podsrc deploy: %v\n%s%s", err, out, errOut)
		}
		t.Logf("kubectl podsrc deploy:\n%s%s", out, errOut)
		for _, want := range []string{
			fmt.Sprintf("(static pods %s, CRI %s), kubelet %s, image %s: %s and nodes added later", c.StaticPodDir, c.CRIEndpoint, cluster.KubeletMinor, clusterImage(t, image), c.NodeName),
			fmt.Sprintf("(static pods %s, CRI %s), kubelet v1.34, image %s-kubelet1.34: %s", n2.StaticPodDir, n2.CRIEndpoint, image, n2.Name),
			"2/2 agents ready",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("deploy's output lacks %q", want)
			}
		}
		if ds := agentDaemonSets(t, c); len(ds) != 2 {
			t.Errorf("DaemonSets %v, want two", ds)
		}
	})

	if !deployed {
		return
	}

	// A static pod on each node, for the tables and for watch.
	c.WriteStaticPod(t, "podsrc-e2e-two.yaml", sleepingStaticPod(c, twoNodesNS, "two"))
	writeStaticPodIn(t, n2.StaticPodDir, "podsrc-e2e-two.yaml", sleepingStaticPod(c, twoNodesNS, "two"))

	t.Run("one table over both nodes", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			// want are, per node, what its rows must hold.
			want map[string]string
		}{
			{[]string{"sources", "--all-nodes"}, map[string]string{c.NodeName: c.StaticPodDir, n2.Name: n2.StaticPodDir}},
			{[]string{"pods", "--all-nodes", "-n", twoNodesNS}, map[string]string{c.NodeName: "two-" + c.NodeName, n2.Name: "two-" + n2.Name}},
			{[]string{"pleg", "--node-selector=kubernetes.io/os=linux"}, map[string]string{c.NodeName: "true", n2.Name: "true"}},
		} {
			t.Run(tc.args[0], func(t *testing.T) {
				var out string
				poll(t, "kubectl podsrc "+strings.Join(tc.args, " ")+" to show both nodes", func(context.Context) (bool, error) {
					o, _, err := runPluginExit(t, c, plugin, tc.args...)
					out = o
					return err == nil && rowsHold(out, tc.want), nil
				})
				header, _, _ := strings.Cut(out, "\n")
				if headers := strings.Count(out, header+"\n"); headers != 1 {
					t.Errorf("%d header lines %q, want one:\n%s", headers, header, out)
				}
			})
		}
	})

	t.Run("each node's agent reproduces its own kubelet", func(t *testing.T) { testOwnMinor(t, c, n2) })

	t.Run("an archive of each node reads offline as live", func(t *testing.T) {
		for _, node := range []string{c.NodeName, n2.Name} {
			t.Run(node, func(t *testing.T) { checkRecordOffline(t, c, plugin, node) })
		}
	})

	t.Run("watch --all-nodes follows both nodes", func(t *testing.T) {
		w := startWatch(t, c, plugin, "watch", "--all-nodes", "--snapshot", "--color=always", "-n", twoNodesNS)
		w.await(t, "both nodes' static pods", func(l string) bool { return strings.Contains(l, "two-"+n2.Name) }, func(l string) bool { return strings.Contains(l, "two-"+c.NodeName) })
		written := time.Now()
		writeStaticPodIn(t, n2.StaticPodDir, "podsrc-e2e-later.yaml", sleepingStaticPod(c, twoNodesNS, "later"))
		added := w.await(t, "the ADD of the manifest written on "+n2.Name, func(l string) bool {
			return strings.Contains(l, n2.Name) && strings.Contains(l, "ADD") && strings.Contains(l, "later-"+n2.Name)
		})
		t.Logf("manifest written on %s -> its ADD line: %s", n2.Name, time.Since(written))
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		exits := twoNodesPod(c.NodeName, c.TestImage, "exits", "-sleep", "1s", "-exit", "3")
		if _, err := c.Client.CoreV1().Pods(twoNodesNS).Create(ctx, exits, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod exits: %v", err)
		}
		died := w.await(t, "the ContainerDied of the pod on "+c.NodeName, func(l string) bool {
			return strings.Contains(l, c.NodeName) && strings.Contains(l, "ContainerDied") && strings.Contains(l, "exits")
		})
		// Each node's NODE cell has its own colour.
		if a, b := nodeColor(added[0], n2.Name), nodeColor(died[0], c.NodeName); a == "" || b == "" || a == b {
			t.Errorf("node colours %q (%s) and %q (%s): want two different colours", a, n2.Name, b, c.NodeName)
		}
	})

	t.Run("the first node reaches a pod on the second", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		web := twoNodesPod(n2.Name, c.TestImage, "web", "-listen", ":8080")
		if _, err := c.Client.CoreV1().Pods(twoNodesNS).Create(ctx, web, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod web: %v", err)
		}
		var body []byte
		poll(t, "pod web on "+n2.Name+" to answer from "+c.NodeName, func(ctx context.Context) (bool, error) {
			p, err := c.Client.CoreV1().Pods(twoNodesNS).Get(ctx, "web", metav1.GetOptions{})
			if err != nil || p.Status.PodIP == "" {
				return false, nil
			}
			body, err = c.InNetNS(ctx, "curl", "-sf", "--max-time", "2", "http://"+p.Status.PodIP+":8080/").Output()
			return err == nil, nil
		})
		t.Logf("pod web on %s answered %s: %s", n2.Name, c.NodeName, strings.TrimSpace(string(body)))
	})

	t.Run("the second node refuses HostToContainer on its runtime's directory", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		p := twoNodesPod(n2.Name, c.TestImage, "propagation", "-sleep", "0")
		prop := corev1.MountPropagationHostToContainer
		dir := filepath.Dir(strings.TrimPrefix(n2.CRIEndpoint, "unix://"))
		p.Spec.Volumes = []corev1.Volume{{Name: "cri", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cri", MountPath: "/cri", ReadOnly: true, MountPropagation: &prop}}
		if _, err := c.Client.CoreV1().Pods(twoNodesNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod propagation: %v", err)
		}
		poll(t, "the runtime to refuse the mount", func(ctx context.Context) (bool, error) {
			p, err := c.Client.CoreV1().Pods(twoNodesNS).Get(ctx, "propagation", metav1.GetOptions{})
			if err != nil || len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
				return false, nil
			}
			w := p.Status.ContainerStatuses[0].State.Waiting
			return w.Reason == "CreateContainerError" && strings.Contains(w.Message, "not a shared or slave mount"), nil
		})
	})

	t.Run("the agent pins no container's mounts", func(t *testing.T) { testNoPinnedMounts(t, c, n2) })

	t.Run("why names each node's own file", func(t *testing.T) {
		for _, n := range []struct{ node, dir string }{{c.NodeName, c.StaticPodDir}, {n2.Name, n2.StaticPodDir}} {
			path := writeStaticPodIn(t, n.dir, "podsrc-e2e-broken.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: [broken\n"))
			var report v1alpha1.WhyReport
			poll(t, "why on "+n.node+" to find "+path+" failing", func(context.Context) (bool, error) {
				out, _, _ := runPluginExit(t, c, plugin, "why", n.node, path, "-o", "json")
				if err := json.Unmarshal([]byte(out), &report); err != nil {
					return false, nil
				}
				return report.Verdict == v1alpha1.VerdictFailing, nil
			})
			if report.NodeName != n.node || !strings.Contains(whyStageText(report), path) {
				t.Errorf("why %s %s: node %q, stage %q says %q; want %s and the file named", n.node, path, report.NodeName, report.Stage, whyStageText(report), n.node)
			}
		}
	})

	t.Run("a node without its agent is named while the other prints", func(t *testing.T) {
		ds := agentDaemonSetOn(t, c, n2.Name)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		patch := `{"spec":{"template":{"spec":{"nodeSelector":{"podsrc.io/e2e-none":"none"}}}}}`
		if _, err := c.Client.AppsV1().DaemonSets(client.AgentNamespace).Patch(ctx, ds, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("taking the agent off %s: %v", n2.Name, err)
		}
		poll(t, "the agent on "+n2.Name+" to be gone", func(ctx context.Context) (bool, error) {
			pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector, FieldSelector: "spec.nodeName=" + n2.Name})
			return err == nil && len(pods.Items) == 0, nil
		})
		out, errOut, err := runPluginExit(t, c, plugin, "sources", "--all-nodes", "--node-timeout=10s")
		if code := exitCode(err); code != 1 {
			t.Errorf("exit %d (%v), want 1", code, err)
		}
		if !rowsHold(out, map[string]string{c.NodeName: c.StaticPodDir}) || strings.Contains(out, n2.Name) {
			t.Errorf("stdout: want %s's rows only:\n%s", c.NodeName, out)
		}
		if want := `error: node "` + n2.Name + `"`; !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	})

	t.Run("undeploy removes both DaemonSets", func(t *testing.T) {
		out, errOut, err := runDeploy(t, c, plugin, "undeploy")
		if err != nil {
			t.Fatalf("kubectl podsrc undeploy: %v\n%s%s", err, out, errOut)
		}
		if ds := agentDaemonSets(t, c); len(ds) != 0 {
			t.Errorf("DaemonSets left: %v", ds)
		}
		if n := strings.Count(out, "daemonset.apps/"); n != 2 {
			t.Errorf("undeploy lists %d DaemonSets, want both:\n%s", n, out)
		}
	})
}

// writeStaticPodIn writes a manifest into a static pod directory atomically
// and removes it when the test ends; it returns the file's path.
func writeStaticPodIn(t *testing.T, dir, file string, manifest []byte) string {
	t.Helper()
	path := filepath.Join(dir, file)
	tmp := filepath.Join(filepath.Dir(dir), "."+file+".tmp")
	if err := os.WriteFile(tmp, manifest, 0o600); err != nil {
		t.Fatalf("writing %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatalf("moving %s into %s: %v", tmp, dir, err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	return path
}

// twoNodesPod is a pod of TestTwoNodes bound to node.
func twoNodesPod(node, image, name string, args ...string) *corev1.Pod {
	grace := int64(1)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: twoNodesNS},
		Spec: corev1.PodSpec{
			NodeName: node, RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "main", Image: image, ImagePullPolicy: corev1.PullNever, Args: args}},
		},
	}
}

// rowsHold reports whether every node has a row that names it in a column
// of its own and holds its text.
func rowsHold(out string, want map[string]string) bool {
	for node, text := range want {
		found := false
		for _, l := range strings.Split(out, "\n") {
			if slices.Contains(strings.Fields(l), node) && strings.Contains(l, text) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// agentDaemonSets lists the agent's DaemonSets.
func agentDaemonSets(t *testing.T, c *cluster.Cluster) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	l, err := c.Client.AppsV1().DaemonSets(client.AgentNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing DaemonSets: %v", err)
	}
	var names []string
	for _, d := range l.Items {
		names = append(names, d.Name)
	}
	return names
}

// agentDaemonSetOn names the DaemonSet whose agent pod runs on node.
func agentDaemonSetOn(t *testing.T, c *cluster.Cluster, node string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector, FieldSelector: "spec.nodeName=" + node})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("the agent pod on %s: %v (%d pods)", node, err, len(pods.Items))
	}
	for _, o := range pods.Items[0].OwnerReferences {
		if o.Kind == "DaemonSet" {
			return o.Name
		}
	}
	t.Fatalf("the agent pod %s has no DaemonSet", pods.Items[0].Name)
	return ""
}

// whyStageText is the failing stage's message and evidence.
func whyStageText(r v1alpha1.WhyReport) string {
	for _, s := range r.Stages {
		if s.Name == r.Stage {
			return s.Message + " " + strings.Join(s.Evidence, " ")
		}
	}
	return ""
}

// ansiPrefix matches the colour escape before a cell.
var ansiPrefix = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// nodeColor returns the escape sequence just before node's name in a line.
func nodeColor(line, node string) string {
	i := strings.Index(line, node)
	if i < 0 {
		return ""
	}
	locs := ansiPrefix.FindAllStringIndex(line[:i], -1)
	if len(locs) == 0 || locs[len(locs)-1][1] != i {
		return ""
	}
	last := locs[len(locs)-1]
	return line[last[0]:last[1]]
}

// runPluginExit runs kubectl podsrc against the cluster and returns its
// stdout, stderr and error, whatever the exit status.
func runPluginExit(t *testing.T, c *cluster.Cluster, plugin string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, plugin, append(args, "--kubeconfig="+c.Kubeconfig)...)
	cmd.WaitDelay = 5 * time.Second
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return o.String(), e.String(), err
}

// exitCode is a command's exit status, -1 when it did not exit.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// watchLines is a running kubectl podsrc watch and the lines it printed.
type watchLines struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{}
}

// startWatch runs kubectl podsrc with args until the test ends, reading its
// stdout line by line.
func startWatch(t *testing.T, c *cluster.Cluster, plugin string, args ...string) *watchLines {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, plugin, append(args, "--kubeconfig="+c.Kubeconfig)...)
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("watch's stdout: %v", err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting kubectl podsrc %s: %v", strings.Join(args, " "), err)
	}
	w := &watchLines{more: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, s.Text())
			w.mu.Unlock()
			select {
			case w.more <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = cmd.Wait()
		if t.Failed() {
			w.mu.Lock()
			t.Logf("watch printed:\n%s", strings.Join(w.lines, "\n"))
			w.mu.Unlock()
		}
	})
	return w
}

// await waits until, for each match, a line printed matches it, and returns
// those lines, failing the test after pollTimeout.
func (w *watchLines) await(t *testing.T, what string, matches ...func(string) bool) []string {
	t.Helper()
	deadline := time.NewTimer(pollTimeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		found := make([]string, 0, len(matches))
		for _, m := range matches {
			for _, l := range w.lines {
				if m(l) {
					found = append(found, l)
					break
				}
			}
		}
		w.mu.Unlock()
		if len(found) == len(matches) {
			return found
		}
		select {
		case <-w.more:
		case <-deadline.C:
			t.Fatalf("waiting %s for watch to show %s", pollTimeout, what)
		}
	}
}

// testNoPinnedMounts shows why the agent may mount the runtime's directory
// without propagation: the agent restarted on the second node copies the
// mounts of the static pod running there, and once the pod is gone the
// kernel has detached them from the agent too.
func testNoPinnedMounts(t *testing.T, c *cluster.Cluster, n2 *cluster.Node2) {
	name := "two-" + n2.Name
	var id string
	poll(t, "the container of "+name+" to run", func(ctx context.Context) (bool, error) {
		p, err := c.Client.CoreV1().Pods(twoNodesNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Running == nil {
			return false, nil
		}
		id = strings.TrimPrefix(p.Status.ContainerStatuses[0].ContainerID, "containerd://")
		return id != "", nil
	})
	old := agentPodOn(t, c, n2.Name, "")
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := c.Client.CoreV1().Pods(client.AgentNamespace).Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("restarting the agent on %s: %v", n2.Name, err)
	}
	agent := agentPodOn(t, c, n2.Name, old.Name)
	pid := taskPID(t, c, n2, strings.TrimPrefix(agent.Status.ContainerStatuses[0].ContainerID, "containerd://"))
	mountinfo := fmt.Sprintf("/proc/%d/mountinfo", pid)
	holds := func() bool {
		b, err := os.ReadFile(mountinfo)
		if err != nil {
			t.Fatalf("reading the agent's mounts: %v", err)
		}
		return strings.Contains(string(b), id)
	}
	if !holds() {
		t.Fatalf("the agent's %s holds no mount of container %s, which ran when it started: nothing to show", mountinfo, id)
	}
	if err := os.Remove(filepath.Join(n2.StaticPodDir, "podsrc-e2e-two.yaml")); err != nil {
		t.Fatalf("removing the static pod's manifest: %v", err)
	}
	poll(t, "the agent to hold no mount of the removed container "+id, func(context.Context) (bool, error) {
		return !holds(), nil
	})
}

// agentPodOn waits for a Ready agent pod on node other than the one named
// not, and returns it.
func agentPodOn(t *testing.T, c *cluster.Cluster, node, not string) *corev1.Pod {
	t.Helper()
	var found *corev1.Pod
	poll(t, "a Ready agent pod on "+node, func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector, FieldSelector: "spec.nodeName=" + node})
		if err != nil {
			return false, nil
		}
		for i, p := range pods.Items {
			if p.Name == not || p.DeletionTimestamp != nil || len(p.Status.ContainerStatuses) == 0 || !p.Status.ContainerStatuses[0].Ready {
				continue
			}
			found = &pods.Items[i]
			return true, nil
		}
		return false, nil
	})
	return found
}

// taskPID is the host PID of a container's task on the second node.
func taskPID(t *testing.T, c *cluster.Cluster, n2 *cluster.Node2, id string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, c.Env["CTR"], "--address", strings.TrimPrefix(n2.CRIEndpoint, "unix://"), "-n", "k8s.io", "tasks", "ls").Output()
	if err != nil {
		t.Fatalf("listing the second node's tasks: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		var task string
		var pid int
		if _, err := fmt.Sscan(l, &task, &pid); err == nil && task == id {
			return pid
		}
	}
	t.Fatalf("no task %s on %s:\n%s", id, n2.Name, out)
	return 0
}
