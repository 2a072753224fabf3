package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	authnv1 "k8s.io/api/authentication/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
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
	t.Run("rbac", func(t *testing.T) { testRBAC(t, e) })
	t.Run("url source", func(t *testing.T) { testURLSource(t, e, urls) })
	t.Run("watch across the agent pod's recreation", func(t *testing.T) { testWatchAcrossRecreate(t, e) })
	t.Run("rollout restart and kubelet restart", func(t *testing.T) { testRestarts(t, e) })
	t.Run("containerd restart", func(t *testing.T) { testContainerdRestart(t, e) })
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

func testFileSource(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	name := "e2e-file-" + c.NodeName
	mark := e.rec.mark()
	path := c.WriteStaticPod(t, "e2e-file.yaml", staticManifest(c, "e2e-file", "one", "-sleep", "0"))

	// Added: an ADD from the file source and a row with source file.
	add := e.waitEvent(t, mark, "ADD file "+name, configEvent("ADD", v1alpha1.SourceFile, agentTestNS, name, ""))
	firstUID := string(add.Pods[0].UID)
	var hash1 string
	e.pollFor(t, "a file row for "+name, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(l, agentTestNS, name)
		for _, p := range ps {
			if p.Source == v1alpha1.SourceFile && p.Static && string(p.UID) == firstUID && p.ConfigHash == firstUID {
				hash1 = p.ConfigHash
				return true, "", nil
			}
		}
		return false, describePods(ps), nil
	})

	// Modified: the kubelet hashes the whole manifest into the UID, so a
	// changed label is a new pod: the old UID is removed, the new added.
	mark = e.rec.mark()
	c.WriteStaticPod(t, "e2e-file.yaml", staticManifest(c, "e2e-file", "two", "-sleep", "0"))
	e.waitEvent(t, mark, "REMOVE file of the old UID "+firstUID, configEvent("REMOVE", v1alpha1.SourceFile, "", "", firstUID))
	add2 := e.waitEvent(t, mark, "ADD file "+name+" with a new UID", func(ev *v1alpha1.Event) bool {
		return configEvent("ADD", v1alpha1.SourceFile, agentTestNS, name, "")(ev) && string(ev.Pods[0].UID) != firstUID
	})
	e.pollFor(t, "the file row of "+name+" to carry the new hash", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(l, agentTestNS, name)
		return len(ps) == 1 && ps[0].UID == add2.Pods[0].UID && ps[0].ConfigHash != hash1, describePods(ps), nil
	})

	// Made invalid (a second file) and shadowing (a third with the same
	// name and namespace): both listed in sources. The kubelet's file
	// source keeps its pods in a store keyed by namespace/name, filled in
	// directory order, so the later file, e2e-shadow.yaml, wins and
	// e2e-file.yaml is the shadowed one; the kubelet runs the winner.
	bad := c.WriteStaticPod(t, "e2e-bad.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: e2e-bad\nspec:\n  containers: []\n"))
	shadow := c.WriteStaticPod(t, "e2e-shadow.yaml", staticManifest(c, "e2e-file", "shadow", "-sleep", "0"))
	var winner types.UID
	e.pollFor(t, "the file source to list "+bad+" as rejected and "+path+" as shadowed by "+shadow+", with the kubelet running the same pod", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*l, v1alpha1.SourceFile)
		if f == nil {
			return false, "no file source", nil
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		kp, err := kubeletPods(ctx, c)
		if err != nil {
			return false, "", err
		}
		var kubeletUID types.UID
		for uid, k := range kp {
			if k.Namespace == agentTestNS && k.Name == name {
				kubeletUID = uid
			}
		}
		ps := podsNamed(pl, agentTestNS, name)
		rejected := slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool {
			return r.Path == bad && strings.Contains(r.Error, "spec.containers")
		})
		shadowed := slices.ContainsFunc(f.ShadowedFiles, func(s v1alpha1.ShadowedFile) bool { return s.Path == path && s.By == shadow })
		ok := rejected && shadowed && len(ps) == 1 && ps[0].UID != add2.Pods[0].UID && ps[0].UID == kubeletUID
		if ok {
			winner = ps[0].UID
		}
		return ok, fmt.Sprintf("rejected=%+v shadowed=%+v pods=%s kubelet's UID=%q", f.RejectedFiles, f.ShadowedFiles, describePods(ps), kubeletUID), nil
	})

	// The invalid manifest is made valid: it is no longer rejected.
	c.WriteStaticPod(t, "e2e-bad.yaml", staticManifest(c, "e2e-bad", "fixed", "-sleep", "0"))
	e.pollFor(t, bad+" to leave the rejected files and its pod to appear", pollTimeout, func(ctx context.Context) (bool, string, error) {
		s, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*s, v1alpha1.SourceFile)
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		rejected := slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool { return r.Path == bad })
		ps := podsNamed(l, agentTestNS, "e2e-bad-"+c.NodeName)
		return !rejected && len(ps) == 1, fmt.Sprintf("rejected=%+v pods=%s", f.RejectedFiles, describePods(ps)), nil
	})

	// The shadowing file removed: e2e-file.yaml's pod is back.
	mark = e.rec.mark()
	if err := os.Remove(shadow); err != nil {
		t.Fatal(err)
	}
	removed := e.waitEvent(t, mark, "REMOVE file of the shadowing pod "+string(winner), configEvent("REMOVE", v1alpha1.SourceFile, "", "", string(winner)))
	added := e.waitEvent(t, mark, "ADD file of "+path+"'s pod again", configEvent("ADD", v1alpha1.SourceFile, "", "", string(add2.Pods[0].UID)))
	// Each names the manifest its pod came from.
	for _, o := range []struct {
		ev   *v1alpha1.Event
		uid  types.UID
		want string
	}{{removed, winner, shadow}, {added, add2.Pods[0].UID, path}} {
		for _, p := range o.ev.Pods {
			if p.UID == o.uid && p.Origin != o.want {
				t.Errorf("%s of %s: origin %q, want %q", o.ev.Op, p.UID, p.Origin, o.want)
			}
		}
	}

	// Removed: a REMOVE and no row.
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	mark = e.rec.mark()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "REMOVE file "+name, configEvent("REMOVE", v1alpha1.SourceFile, "", "", string(add2.Pods[0].UID)))
	e.pollFor(t, "no file rows and no shadowed files left of "+name, pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceFile})
		if err != nil {
			return false, "", err
		}
		s, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		f := findSource(*s, v1alpha1.SourceFile)
		ps := podsNamed(l, agentTestNS, name)
		// Only this test's files count: other static pods may be on the node.
		mine := slices.ContainsFunc(f.ShadowedFiles, func(s v1alpha1.ShadowedFile) bool {
			return s.Path == path || s.By == path || s.Path == shadow || s.By == shadow
		})
		return len(ps) == 0 && !mine, fmt.Sprintf("pods=%s shadowed=%+v", describePods(ps), f.ShadowedFiles), nil
	})
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

func testAPISource(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	pods := c.Client.CoreV1().Pods(agentTestNS)

	s, err := a.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range s.Items {
		if !src.Seen {
			t.Errorf("source %s is not seen, yet allSourcesSeen=%v", src.Name, s.AllSourcesSeen)
		}
	}
	if !s.AllSourcesSeen {
		t.Errorf("allSourcesSeen is false with sources %+v", s.Items)
	}

	mark := e.rec.mark()
	p, err := pods.Create(ctx, apiPod(c, "e2e-api", corev1.RestartPolicyAlways, "-sleep", "0"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := string(p.UID)
	e.waitEvent(t, mark, "ADD api e2e-api", configEvent("ADD", v1alpha1.SourceAPI, "", "", uid))

	mark = e.rec.mark()
	patch := []byte(`{"metadata":{"labels":{"e2e":"relabelled"}}}`)
	if _, err := pods.Patch(ctx, "e2e-api", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "UPDATE api e2e-api after relabelling", configEvent("UPDATE", v1alpha1.SourceAPI, "", "", uid))

	// A graceful delete sets the deletion timestamp (DELETE); the kubelet
	// stops the pod and removes the object (REMOVE).
	mark = e.rec.mark()
	grace := int64(5)
	if err := pods.Delete(ctx, "e2e-api", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "DELETE api e2e-api", configEvent("DELETE", v1alpha1.SourceAPI, "", "", uid))
	e.waitEvent(t, mark, "REMOVE api e2e-api", configEvent("REMOVE", v1alpha1.SourceAPI, "", "", uid))
	// No configured row is left. The runtime still holds the pod's exited
	// sandbox until the kubelet's garbage collection (about a minute), and
	// pods lists it until then as a runtime-only row, with no source: that
	// is the kubelet's state, not a duplicate.
	e.pollFor(t, "no configured row of the removed e2e-api", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		var left []v1alpha1.PodInfo
		for _, p := range l.Items {
			if string(p.UID) == uid && (p.Source != "" || p.Runtime == nil) {
				left = append(left, p)
			}
		}
		return len(left) == 0, describePods(left), nil
	})
}

func testPLEG(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	mark := e.rec.mark()
	p, err := c.Client.CoreV1().Pods(agentTestNS).Create(ctx, apiPod(c, "e2e-exit", corev1.RestartPolicyNever, "-sleep", "2s", "-exit", "7"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := p.UID
	started := e.waitEvent(t, mark, "PLEG ContainerStarted of e2e-exit", func(ev *v1alpha1.Event) bool {
		return ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == uid && ev.Type == "ContainerStarted" && !ev.Sandbox
	})
	if started.KubeletSends == nil || !*started.KubeletSends {
		t.Errorf("ContainerStarted is marked as not sent by the kubelet: %+v", started)
	}
	died := e.waitEvent(t, mark, "PLEG ContainerDied of e2e-exit", func(ev *v1alpha1.Event) bool {
		return ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == uid && ev.Type == "ContainerDied" && ev.Data == started.Data
	})
	if died.ExitCode == nil || *died.ExitCode != 7 {
		t.Errorf("ContainerDied of e2e-exit has exit code %s, want 7", ptrInt(died.ExitCode))
	}

	// pods joins the API pod with the runtime's view of it, in one row.
	e.pollFor(t, "one row of e2e-exit joining the api pod and its exited container", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		var rows []v1alpha1.PodInfo
		for _, p := range l.Items {
			if p.UID == uid || (p.Namespace == agentTestNS && p.Name == "e2e-exit") {
				rows = append(rows, p)
			}
		}
		if len(rows) != 1 || rows[0].Source != v1alpha1.SourceAPI || rows[0].Runtime == nil {
			return false, describePods(rows), nil
		}
		for _, ctr := range rows[0].Runtime.Containers {
			if ctr.Name == "main" && ctr.ExitCode == 7 && ctr.State != "" && ctr.FinishedAt != nil {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("%s containers %+v", describePods(rows), rows[0].Runtime.Containers), nil
	})

	st, err := a.PLEG(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Enabled || !st.Healthy || st.RuntimeEndpoint == "" {
		t.Errorf("PLEG status: enabled=%v healthy=%v endpoint=%q message=%q", st.Enabled, st.Healthy, st.RuntimeEndpoint, st.Message)
	}
}

// podKey is what podsrc and the kubelet must agree on for a pod.
type podKey struct {
	Namespace, Name, Source, Hash string
}

// kubeletPods is the kubelet's /pods, keyed as agentConfigPods keys podsrc's.
func kubeletPods(ctx context.Context, c *cluster.Cluster) (map[types.UID]podKey, error) {
	l, err := c.KubeletPods(ctx)
	if err != nil {
		return nil, err
	}
	out := map[types.UID]podKey{}
	for _, p := range l.Items {
		out[p.UID] = podKey{p.Namespace, p.Name, p.Annotations["kubernetes.io/config.source"], p.Annotations["kubernetes.io/config.hash"]}
	}
	return out, nil
}

// bothViews returns the kubelet's pods (its /pods) and podsrc's configured
// pods, keyed alike for comparison.
func bothViews(ctx context.Context, c *cluster.Cluster, a *client.Agent) (kubelet, podsrc map[types.UID]podKey, err error) {
	if kubelet, err = kubeletPods(ctx, c); err != nil {
		return nil, nil, err
	}
	l, err := a.Pods(ctx, v1alpha1.PodQuery{})
	if err != nil {
		return nil, nil, err
	}
	return kubelet, agentConfigPods(l), nil
}

// agentConfigPods is podsrc's merged view as the kubelet keeps it: the
// configured pods but mirror pods (the kubelet's pod manager keeps those
// apart) and URL pods (this kubelet has no URL source).
func agentConfigPods(l *v1alpha1.PodList) map[types.UID]podKey {
	out := map[types.UID]podKey{}
	for _, p := range l.Items {
		if p.Source == "" || p.Mirror || p.Source == v1alpha1.SourceHTTP {
			continue
		}
		out[p.UID] = podKey{p.Namespace, p.Name, p.Source, p.ConfigHash}
	}
	return out
}

func testAgainstKubelet(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	// Two static pods and an API pod of the test's own, so the comparison
	// covers every source the kubelet has.
	c.WriteStaticPod(t, "e2e-cmp-a.yaml", staticManifest(c, "e2e-cmp-a", "a", "-sleep", "0"))
	c.WriteStaticPod(t, "e2e-cmp-b.yaml", staticManifest(c, "e2e-cmp-b", "b", "-sleep", "0"))
	ctx := context.Background()
	pods := c.Client.CoreV1().Pods(agentTestNS)
	if _, err := pods.Create(ctx, apiPod(c, "e2e-cmp-api", corev1.RestartPolicyAlways, "-sleep", "0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pods.Delete(context.Background(), "e2e-cmp-api", metav1.DeleteOptions{}) })

	e.pollFor(t, "podsrc's merged pods to equal the kubelet's /pods and every static pod's UID its mirror's config.mirror", pollTimeout, func(ctx context.Context) (bool, string, error) {
		kp, ap, err := bothViews(ctx, c, a)
		if err != nil {
			return false, "", err
		}
		var diffs []string
		for uid, k := range kp {
			if ap[uid] != k {
				diffs = append(diffs, fmt.Sprintf("kubelet %s %+v, podsrc %+v", uid, k, ap[uid]))
			}
		}
		for uid, k := range ap {
			if _, ok := kp[uid]; !ok {
				diffs = append(diffs, fmt.Sprintf("podsrc only %s %+v", uid, k))
			}
		}
		want := map[string]bool{"e2e-cmp-a-" + c.NodeName: false, "e2e-cmp-b-" + c.NodeName: false, "e2e-cmp-api": false}
		for _, k := range ap {
			if _, ok := want[k.Name]; ok && k.Namespace == agentTestNS {
				want[k.Name] = true
			}
		}
		for n, ok := range want {
			if !ok {
				diffs = append(diffs, "podsrc lacks "+n)
			}
		}
		// Mirror pods: the API server's config.mirror of every static pod.
		for uid, k := range ap {
			if k.Source != v1alpha1.SourceFile {
				continue
			}
			m, err := c.Client.CoreV1().Pods(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				diffs = append(diffs, "no mirror pod yet for "+k.Name)
				continue
			}
			if err != nil {
				return false, "", err
			}
			if got := m.Annotations[corev1.MirrorPodAnnotationKey]; got != string(uid) {
				diffs = append(diffs, fmt.Sprintf("mirror pod %s/%s has %s=%q, podsrc's UID is %s", k.Namespace, k.Name, corev1.MirrorPodAnnotationKey, got, uid))
			}
		}
		slices.Sort(diffs)
		return len(diffs) == 0, strings.Join(diffs, "; "), nil
	})

	// Each pod once: a configured pod the runtime runs is one row, not a
	// configured row plus a runtime-only row.
	e.pollFor(t, "every running pod of the test to be one joined row", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Pods(ctx, v1alpha1.PodQuery{})
		if err != nil {
			return false, "", err
		}
		rows := map[string][]v1alpha1.PodInfo{}
		for _, p := range l.Items {
			if p.Mirror {
				continue
			}
			rows[p.Namespace+"/"+p.Name] = append(rows[p.Namespace+"/"+p.Name], p)
		}
		var bad []string
		for _, n := range []string{"e2e-cmp-a-" + c.NodeName, "e2e-cmp-b-" + c.NodeName, "e2e-cmp-api"} {
			rs := rows[agentTestNS+"/"+n]
			if len(rs) != 1 || rs[0].Runtime == nil || rs[0].Source == "" {
				bad = append(bad, n+": "+describePods(rs))
			}
		}
		for key, rs := range rows {
			if len(rs) > 1 {
				bad = append(bad, "twice: "+key+": "+describePods(rs))
			}
		}
		return len(bad) == 0, strings.Join(bad, "; "), nil
	})
}

func testPluginCommands(t *testing.T, e *env) {
	c := e.c
	kc := "--kubeconfig=" + c.Kubeconfig
	for _, via := range []string{"node-proxy", "pod-proxy"} {
		for _, cmd := range [][]string{
			{"sources", c.NodeName},
			{"pods", c.NodeName, "-n", client.AgentNamespace},
			{"pleg", c.NodeName},
			{"version", c.NodeName},
		} {
			args := append(append([]string{}, cmd...), kc, "--via="+via)
			out, err := e.runPlugin(t, false, nil, args...)
			if err != nil {
				t.Errorf("kubectl-podsrc %s: %v\n%s", strings.Join(args, " "), err, out)
				continue
			}
			if !strings.Contains(out, c.NodeName) {
				t.Errorf("kubectl-podsrc %s does not name node %s:\n%s", strings.Join(args, " "), c.NodeName, out)
			}
			if cmd[0] == "pods" && !strings.Contains(out, "podsrc-agent-") {
				t.Errorf("kubectl-podsrc %s does not list the agent's own pod:\n%s", strings.Join(args, " "), out)
			}
		}
	}

	// The agent's own pod: its name from the flat List of pods, its labels
	// as a column, then the pod by name with its source and runtime state.
	name, err := e.runPlugin(t, false, nil, "pods", c.NodeName, kc, "-n", client.AgentNamespace, "-o", "jsonpath={.items[0].name}")
	if err != nil || !strings.HasPrefix(name, "podsrc-agent-") {
		t.Fatalf("kubectl-podsrc pods -o jsonpath={.items[0].name}: %v\n%s", err, name)
	}
	out, err := e.runPlugin(t, false, nil, "pods", c.NodeName, kc, "-n", client.AgentNamespace, "-L", client.AgentLabelKey)
	if err != nil || !strings.Contains(out, strings.ToUpper(client.AgentLabelKey[strings.LastIndex(client.AgentLabelKey, "/")+1:])) || !strings.Contains(out, client.AgentLabelValue) {
		t.Errorf("kubectl-podsrc pods -L %s does not show the label:\n%s", client.AgentLabelKey, out)
	}
	out, err = e.runPlugin(t, false, nil, "pod", c.NodeName, client.AgentNamespace+"/"+name, kc)
	for _, want := range []string{"Name:", name, "Source:", "api", client.AgentSelector, "Sandbox:", "ready", "Containers:", "Events"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("kubectl-podsrc pod %s %s/%s lacks %q: %v\n%s", c.NodeName, client.AgentNamespace, name, want, err, out)
			break
		}
	}

	// kubectl finds the plugin on PATH.
	kubeconfigEnv := []string{"KUBECONFIG=" + c.Kubeconfig}
	out, err = e.runPlugin(t, true, kubeconfigEnv, "sources", c.NodeName)
	if err != nil || !strings.Contains(out, c.StaticPodDir) {
		t.Errorf("%s podsrc sources %s: %v\n%s", c.Env["KUBECTL"], c.NodeName, err, out)
	}
	out, err = e.runPlugin(t, true, kubeconfigEnv, "pods", c.NodeName, "--via=pod-proxy", "-n", client.AgentNamespace)
	if err != nil || !strings.Contains(out, "podsrc-agent-") {
		t.Errorf("%s podsrc pods --via=pod-proxy: %v\n%s", c.Env["KUBECTL"], err, out)
	}
}

// userKubeconfig makes ServiceAccount name in agentTestNS, optionally bound
// to a viewer role, and writes a kubeconfig with a token of it.
func userKubeconfig(t *testing.T, e *env, name string, bind func(ctx context.Context, subject rbacv1.Subject) error) string {
	t.Helper()
	c := e.c
	ctx := context.Background()
	sas := c.Client.CoreV1().ServiceAccounts(agentTestNS)
	if _, err := sas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if bind != nil {
		if err := bind(ctx, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: agentTestNS}); err != nil {
			t.Fatal(err)
		}
	}
	exp := int64(600)
	tr, err := sas.CreateToken(ctx, name, &authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.Config.CAData, CertificateAuthority: c.Config.CAFile}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: name}
	cfg.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func testRBAC(t *testing.T, e *env) {
	c := e.c
	rbac := c.Client.RbacV1()
	podUser := userKubeconfig(t, e, "e2e-pod-viewer", func(ctx context.Context, s rbacv1.Subject) error {
		_, err := rbac.RoleBindings(client.AgentNamespace).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-pod-viewer"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: client.PodProxyRole},
			Subjects:   []rbacv1.Subject{s},
		}, metav1.CreateOptions{})
		t.Cleanup(func() {
			_ = rbac.RoleBindings(client.AgentNamespace).Delete(context.Background(), "e2e-pod-viewer", metav1.DeleteOptions{})
		})
		return err
	})
	nodeUser := userKubeconfig(t, e, "e2e-node-viewer", func(ctx context.Context, s rbacv1.Subject) error {
		_, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-node-viewer"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: client.NodeProxyRole},
			Subjects:   []rbacv1.Subject{s},
		}, metav1.CreateOptions{})
		t.Cleanup(func() {
			_ = rbac.ClusterRoleBindings().Delete(context.Background(), "e2e-node-viewer", metav1.DeleteOptions{})
		})
		return err
	})
	nobody := userKubeconfig(t, e, "e2e-nobody", nil)

	type run struct {
		kubeconfig, via string
		ok              bool
		wantMsg         []string
	}
	for _, r := range []run{
		{podUser, "pod-proxy", true, nil},
		{podUser, "node-proxy", false, []string{"forbidden", "nodes/proxy", client.NodeProxyRole, "--via=pod-proxy"}},
		{nodeUser, "node-proxy", true, nil},
		{nobody, "node-proxy", false, []string{"forbidden", "nodes/proxy", client.NodeProxyRole}},
		{nobody, "pod-proxy", false, []string{"forbidden", "pods/proxy", client.PodProxyRole}},
	} {
		user := strings.TrimSuffix(filepath.Base(r.kubeconfig), ".kubeconfig")
		// RBAC of a new binding reaches the authorizer's cache quickly but
		// not at once: poll the allowed runs.
		var out string
		var err error
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, err = e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+r.kubeconfig, "--via="+r.via)
			if !r.ok || err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(pollInterval)
		}
		switch {
		case r.ok && err != nil:
			t.Errorf("%s --via=%s: %v\n%s", user, r.via, err, out)
		case r.ok && !strings.Contains(out, c.StaticPodDir):
			t.Errorf("%s --via=%s: no file source row:\n%s", user, r.via, out)
		case !r.ok && err == nil:
			t.Errorf("%s --via=%s succeeded, want forbidden:\n%s", user, r.via, out)
		case !r.ok:
			for _, m := range r.wantMsg {
				if !strings.Contains(out, m) {
					t.Errorf("%s --via=%s: the error does not say %q:\n%s", user, r.via, m, out)
				}
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); n > 2 {
				t.Errorf("%s --via=%s: the forbidden message takes %d lines, want a short one:\n%s", user, r.via, n+1, out)
			}
		}
	}

	// The agent's own ServiceAccount: what its ClusterRole grants, and
	// nothing more.
	agentSA := "system:serviceaccount:" + client.AgentNamespace + ":podsrc-agent"
	ctx := context.Background()
	for _, check := range []struct {
		attrs authv1.ResourceAttributes
		want  bool
	}{
		{authv1.ResourceAttributes{Verb: "list", Resource: "pods"}, true},
		{authv1.ResourceAttributes{Verb: "watch", Resource: "pods"}, true},
		{authv1.ResourceAttributes{Verb: "watch", Resource: "nodes"}, true},
		{authv1.ResourceAttributes{Verb: "create", Resource: "pods", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "delete", Resource: "pods", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "update", Resource: "pods", Subresource: "status", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: client.AgentNamespace}, false},
		{authv1.ResourceAttributes{Verb: "list", Resource: "secrets"}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "proxy", Name: c.NodeName}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "pods", Subresource: "proxy", Namespace: client.AgentNamespace}, false},
		{authv1.ResourceAttributes{Verb: "patch", Resource: "nodes", Name: c.NodeName}, false},
		{authv1.ResourceAttributes{Verb: "create", Resource: "events", Namespace: client.AgentNamespace}, false},
	} {
		attrs := check.attrs
		sar, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
			User: agentSA, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + client.AgentNamespace, "system:authenticated"},
			ResourceAttributes: &attrs,
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != check.want {
			t.Errorf("%s may %s %s/%s in %q: %v, want %v (%s)", agentSA, attrs.Verb, attrs.Resource, attrs.Subresource, attrs.Namespace, sar.Status.Allowed, check.want, sar.Status.Reason)
		}
	}
}

// patchAgentArgs appends args to the agent container's and waits for the
// new pod.
func patchAgentArgs(t *testing.T, e *env, args ...string) {
	t.Helper()
	var ops []string
	for _, a := range args {
		ops = append(ops, fmt.Sprintf(`{"op":"add","path":"/spec/template/spec/containers/0/args/-","value":%q}`, a))
	}
	_, err := e.c.Client.AppsV1().DaemonSets(client.AgentNamespace).Patch(context.Background(), "podsrc-agent",
		types.JSONPatchType, []byte("["+strings.Join(ops, ",")+"]"), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patching the DaemonSet's args: %v", err)
	}
}

func testURLSource(t *testing.T, e *env, s *urlServer) {
	c := e.c
	a := e.agent(t)
	s.setPods(t, fmt.Sprintf(`{"apiVersion":"v1","kind":"PodList","items":[
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"e2e-url","namespace":%q},"spec":{"containers":[{"name":"main","image":%q,"imagePullPolicy":"Never"}]}}]}`,
		agentTestNS, c.TestImage))
	// The server fails from the start: the new agent has an unseen http
	// source, so it is not ready and says so.
	s.setFail(t, true)
	mark := e.rec.mark()
	patchAgentArgs(t, e, "--static-pod-url="+s.url, "--http-check-frequency=2s")
	e.pollFor(t, "the new agent to report its http source unseen with the server's error, and not ready", restartTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		h := findSource(*l, v1alpha1.SourceHTTP)
		if h == nil {
			return false, fmt.Sprintf("no http source: %+v", l.Items), nil
		}
		return !h.Seen && !l.AllSourcesSeen && strings.Contains(h.LastError, "500"), fmt.Sprintf("http=%+v allSeen=%v", *h, l.AllSourcesSeen), nil
	})
	// /readyz through the node proxy: "ok", or the agent's 503 text.
	readyz := func(ctx context.Context) string {
		body, err := c.Client.CoreV1().RESTClient().Get().
			AbsPath("/api/v1/nodes", fmt.Sprintf("%s:%d", c.NodeName, v1alpha1.DefaultAgentPort), "proxy", "readyz").
			DoRaw(ctx)
		if err != nil {
			return fmt.Sprintf("%v: %s", err, body)
		}
		return strings.TrimSpace(string(body))
	}
	// The api source may be unseen too, that early: "sources not seen
	// yet: api, http".
	if got := readyz(context.Background()); !strings.Contains(got, "sources not seen yet:") || !strings.Contains(got, "http") {
		t.Errorf("/readyz with the http source unseen: %q, want a 503 naming the http source", got)
	}

	s.setFail(t, false)
	name := "e2e-url-" + c.NodeName
	e.waitEvent(t, mark, "ADD http "+name, configEvent("ADD", v1alpha1.SourceHTTP, agentTestNS, name, ""))
	e.pollFor(t, "the http pod and every source seen", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceHTTP})
		if err != nil {
			return false, "", err
		}
		ps := podsNamed(pl, agentTestNS, name)
		ready := readyz(ctx)
		return l.AllSourcesSeen && len(ps) == 1 && ps[0].Static && ready == "ok", fmt.Sprintf("allSeen=%v readyz=%q pods=%s", l.AllSourcesSeen, ready, describePods(ps)), nil
	})
	waitAgentReady(t, c)

	// A 500 after that leaves the pods as they were and shows the error.
	s.setFail(t, true)
	e.pollFor(t, "the http source to show the 500 and keep its pod", pollTimeout, func(ctx context.Context) (bool, string, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		pl, err := a.Pods(ctx, v1alpha1.PodQuery{Source: v1alpha1.SourceHTTP})
		if err != nil {
			return false, "", err
		}
		h := findSource(*l, v1alpha1.SourceHTTP)
		ps := podsNamed(pl, agentTestNS, name)
		return strings.Contains(h.LastError, "500") && h.Seen && h.Pods == 1 && len(ps) == 1, fmt.Sprintf("http=%+v pods=%s", *h, describePods(ps)), nil
	})
	out, err := e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+c.Kubeconfig)
	if err != nil || !strings.Contains(out, s.url) {
		t.Errorf("kubectl-podsrc sources with the URL source: %v\n%s", err, out)
	}
	out, err = e.runPlugin(t, false, nil, "pods", c.NodeName, "--source=http", "--kubeconfig="+c.Kubeconfig)
	if err != nil || !strings.Contains(out, name) {
		t.Errorf("kubectl-podsrc pods --source=http: %v\n%s", err, out)
	}
	s.setFail(t, false)
}

// agentPod returns the name and UID of the agent's live pod.
func agentPod(ctx context.Context, c *cluster.Cluster) (string, types.UID, error) {
	pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector})
	if err != nil {
		return "", "", err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			return p.Name, p.UID, nil
		}
	}
	return "", "", fmt.Errorf("no live agent pod")
}

func testWatchAcrossRecreate(t *testing.T, e *env) {
	c := e.c
	ctx := context.Background()
	name, uid, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	mark := e.rec.mark()
	if err := c.Client.CoreV1().Pods(client.AgentNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The DaemonSet makes a new pod; the agent in it sees its own pod
	// (api) and the static pods again, and the watcher resumes there.
	e.pollFor(t, "a new agent pod", restartTimeout, func(ctx context.Context) (bool, string, error) {
		n, u, err := agentPod(ctx, c)
		return err == nil && u != uid, n, err
	})
	waitAgentReady(t, c)
	newName, newUID, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "the new agent's ADD of its own pod "+newName, configEvent("ADD", v1alpha1.SourceAPI, "", "", string(newUID)))

	// Across the recreation: a reset (another epoch), then the new agent's
	// events from its first on, with no hole that is not reported as a gap.
	msgs := e.rec.since(mark)
	resetAt := slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool { return m.Type == v1alpha1.MessageReset })
	if resetAt < 0 {
		t.Fatalf("no reset message after the agent pod was recreated:\n%s", describeMsgs(msgs, 20))
	}
	checkSequence(t, msgs[resetAt:])
}

// checkSequence checks that within each epoch event sequence numbers follow
// one another, or that a gap message announces what is missing.
func checkSequence(t *testing.T, msgs []v1alpha1.StreamMessage) {
	t.Helper()
	var epoch string
	var last uint64
	for i, m := range msgs {
		if m.Epoch != epoch {
			epoch, last = m.Epoch, 0
		}
		switch m.Type {
		case v1alpha1.MessageReset:
			last = 0
		case v1alpha1.MessageGap:
			if m.From != last+1 {
				t.Errorf("message %d: gap from %d after event %d:\n%s", i, m.From, last, describeMsgs(msgs[:i+1], 10))
			}
			last = m.To
		case v1alpha1.MessageSnapshot:
			last = m.Seq
		case v1alpha1.MessageEvent:
			if m.Event.Seq != last+1 {
				t.Errorf("message %d: event %d follows %d with no gap message:\n%s", i, m.Event.Seq, last, describeMsgs(msgs[:i+1], 10))
			}
			last = m.Event.Seq
		}
	}
}

func testRestarts(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	_, oldUID, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	kubectl := exec.Command(c.Env["KUBECTL"], "--kubeconfig", c.Kubeconfig, "-n", client.AgentNamespace, "rollout", "restart", "daemonset/podsrc-agent")
	if out, err := kubectl.CombinedOutput(); err != nil {
		t.Fatalf("kubectl rollout restart: %v\n%s", err, out)
	}
	e.pollFor(t, "the restarted agent to serve every source seen", restartTimeout, func(ctx context.Context) (bool, string, error) {
		_, u, err := agentPod(ctx, c)
		if err != nil {
			return false, "", err
		}
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		return u != oldUID && l.AllSourcesSeen, fmt.Sprintf("pod %s allSeen=%v", u, l.AllSourcesSeen), nil
	})
	waitAgentReady(t, c)

	// The kubelet restarting does not touch the agent: it goes on serving,
	// and its pods still equal the kubelet's once it is back.
	c.RestartKubelet(t)
	e.pollFor(t, "podsrc to serve and equal the kubelet's /pods after the kubelet's restart", pollTimeout, func(ctx context.Context) (bool, string, error) {
		kp, ap, err := bothViews(ctx, c, a)
		if err != nil {
			return false, "", err
		}
		return maps.Equal(ap, kp), fmt.Sprintf("kubelet %v podsrc %v", kp, ap), nil
	})
	out, err := e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+c.Kubeconfig)
	if err != nil {
		t.Errorf("kubectl-podsrc sources after the restarts: %v\n%s", err, out)
	}
}

// testContainerdRestart restarts the kubelet's containerd while kubectl
// podsrc watch runs. containerd's restart makes a new socket (a new inode);
// the DaemonSet mounts the socket's directory, not the socket, so the agent
// dials the new one at once: its PLEG is healthy again and a container
// started after the restart shows as ContainerStarted on the stream within
// restartDeadline of containerd being back, without the agent's container
// being restarted.
func testContainerdRestart(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	const name = "e2e-after-containerd"
	pod0 := agentPodStatus(t, e)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := exec.CommandContext(ctx, e.plugin, "watch", c.NodeName, "--kubeconfig", c.Kubeconfig, "--kind=pleg", "-n", agentTestNS, "-o", "json")
	watch.WaitDelay = 5 * time.Second
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatalf("starting kubectl podsrc watch: %v", err)
	}
	started := make(chan time.Time, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m v1alpha1.StreamMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.Event == nil {
				continue
			}
			if ev := m.Event; ev.Kind == v1alpha1.EventKindPLEG && ev.PodName == name && ev.Type == "ContainerStarted" && !ev.Sandbox {
				select {
				case started <- time.Now():
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = watch.Wait()
		if t.Failed() {
			t.Logf("kubectl podsrc watch's stderr:\n%s", stderr.String())
		}
	})

	c.RestartContainerd(t)
	back := time.Now()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: agentTestNS},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers:                    []corev1.Container{{Name: "main", Image: c.TestImage, ImagePullPolicy: corev1.PullNever, Args: []string{"-sleep", "0"}}},
		},
	}
	if _, err := c.Client.CoreV1().Pods(agentTestNS).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s/%s: %v", agentTestNS, name, err)
	}
	t.Cleanup(func() {
		_ = c.Client.CoreV1().Pods(agentTestNS).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	})
	select {
	case at := <-started:
		took := at.Sub(back)
		t.Logf("containerd restart: ContainerStarted of a new pod's container on kubectl podsrc watch %v after containerd was back", took.Round(10*time.Millisecond))
		if took > restartDeadline {
			t.Errorf("ContainerStarted came %v after containerd was back, want within %v", took, restartDeadline)
		}
	case <-time.After(pollTimeout):
		e.agentLogs(t)
		t.Fatalf("no ContainerStarted of %s on kubectl podsrc watch within %v of containerd's restart", name, pollTimeout)
	}
	e.pollFor(t, "the PLEG to be healthy, relisting after containerd's restart", restartDeadline, func(ctx context.Context) (bool, string, error) {
		st, err := a.PLEG(ctx)
		if err != nil {
			return false, "", err
		}
		ok := st.Healthy && st.LastRelist != nil && st.LastRelist.After(back) && st.ConsecutiveFailures == 0
		return ok, fmt.Sprintf("healthy=%v lastRelist=%v failures=%d lastError=%q", st.Healthy, st.LastRelist, st.ConsecutiveFailures, st.LastError), nil
	})
	if pod1 := agentPodStatus(t, e); pod1.uid != pod0.uid || pod1.restarts != pod0.restarts {
		t.Errorf("the agent was restarted to recover (pod %s restarts %d -> pod %s restarts %d); it should follow the socket", pod0.uid, pod0.restarts, pod1.uid, pod1.restarts)
	}
}

// restartDeadline is how soon after the runtime is back the agent must
// report a new container again.
const restartDeadline = 15 * time.Second

// agentPodState is the agent pod of the node and its container's restarts.
type agentPodState struct {
	uid      types.UID
	restarts int32
}

func agentPodStatus(t *testing.T, e *env) agentPodState {
	t.Helper()
	name := waitAgentReady(t, e.c)
	p, err := e.c.Client.CoreV1().Pods(client.AgentNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var restarts int32
	for _, cs := range p.Status.ContainerStatuses {
		restarts += cs.RestartCount
	}
	return agentPodState{uid: p.UID, restarts: restarts}
}
