package e2e

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/test/cluster"
)

// minorNode is one node of the two-node cluster, as testOwnMinor checks it.
type minorNode struct {
	name, staticPodDir, kubeletLog, kubeletVersion string
}

// testOwnMinor checks, after deploy gave each node the agent of its
// kubelet's minor, that each agent reproduces its own kubelet: the agent
// reports the node's minor, its pods equal that kubelet's /pods, a manifest
// that references a ConfigMap is refused with the words the kubelet logs
// for it, and a static pod with a priority but no priorityClassName is
// warned about on the minors whose kubelet logs that warning (v1.37 on),
// and on no other.
func testOwnMinor(t *testing.T, c *cluster.Cluster, n2 *cluster.Node2) {
	nodes := []minorNode{
		{c.NodeName, c.StaticPodDir, c.KubeletLog, cluster.KubeletVersion},
		{n2.Name, n2.StaticPodDir, n2.KubeletLog, n2.KubeletVersion},
	}
	const (
		refusedFile = "podsrc-e2e-configmap.yaml"
		warnedFile  = "podsrc-e2e-priority.yaml"
		// refusal is what the kubelet's decoder says of a static pod
		// that references a ConfigMap (gate PreventStaticPodAPIReferences,
		// on by default from v1.34, GA in v1.37).
		refusal = "static pods may not reference configmaps"
		// priorityWarning is the start of what the v1.37 kubelet logs for
		// a static pod with a priority and no priorityClassName.
		priorityWarning = "Static pod has priority without priorityClassName"
	)
	for _, n := range nodes {
		writeStaticPodIn(t, n.staticPodDir, refusedFile, configMapStaticPod(c, "refused"))
		writeStaticPodIn(t, n.staticPodDir, warnedFile, priorityStaticPod(c, "priority"))
	}
	for _, n := range nodes {
		t.Run(n.name, func(t *testing.T) {
			minor, err := kubeletminor.Of(n.kubeletVersion)
			if err != nil {
				t.Fatal(err)
			}
			warns := minor >= kubeletminor.V137
			var diffs []string
			poll(t, "the agent on "+n.name+" to reproduce kubelet "+n.kubeletVersion+" and its pods to equal the kubelet's /pods", func(ctx context.Context) (bool, error) {
				var v v1alpha1.Version
				if err := agentRawGetOn(ctx, c, n.name, v1alpha1.VersionPath, &v); err != nil {
					return false, err
				}
				if got, err := kubeletminor.Of(v.ReproducedKubeletVersion); err != nil || got != minor {
					diffs = []string{fmt.Sprintf("agent reproduces kubelet %q, want %s", v.ReproducedKubeletVersion, minor)}
					return false, nil
				}
				kubelet, err := kubeletPodsOn(ctx, c, n.name)
				if err != nil {
					return false, fmt.Errorf("%w: %v", errRetry, err)
				}
				var l v1alpha1.PodList
				if err := agentGetOn(ctx, c, n.name, "pods", &l); err != nil {
					return false, err
				}
				podsrc := agentConfigPods(&l)
				diffs = podViewDiffs(kubelet, podsrc)
				// The warned pod runs, the refused one is in neither view.
				if !slices.ContainsFunc(slices.Collect(maps.Values(podsrc)), func(k podKey) bool { return k.Name == "priority-"+n.name }) {
					diffs = append(diffs, "podsrc lacks priority-"+n.name)
				}
				slices.Sort(diffs)
				return len(diffs) == 0, nil
			})
			if len(diffs) != 0 {
				t.Fatalf("on %s: %s", n.name, strings.Join(diffs, "; "))
			}

			var sources v1alpha1.SourceList
			poll(t, "the agent on "+n.name+" to judge both manifests", func(ctx context.Context) (bool, error) {
				if err := agentGetOn(ctx, c, n.name, "sources", &sources); err != nil {
					return false, err
				}
				f := findSource(sources, v1alpha1.SourceFile)
				return f != nil && slices.ContainsFunc(f.RejectedFiles, func(r v1alpha1.RejectedFile) bool { return filepath.Base(r.Path) == refusedFile }), nil
			})
			f := findSource(sources, v1alpha1.SourceFile)
			for _, r := range f.RejectedFiles {
				if filepath.Base(r.Path) == refusedFile && !strings.Contains(r.Error, refusal) {
					t.Errorf("%s on %s is refused with %q, want the kubelet's %q", refusedFile, n.name, r.Error, refusal)
				}
			}
			if !logHas(t, n.kubeletLog, refusedFile, refusal) {
				t.Errorf("the kubelet's log on %s has no line naming %s with %q: the refusal is not the kubelet's", n.name, refusedFile, refusal)
			}

			var warnings []string
			for _, w := range f.WarnedFiles {
				if filepath.Base(w.Path) == warnedFile {
					warnings = w.Warnings
				}
			}
			switch {
			case warns && (len(warnings) != 1 || !strings.Contains(warnings[0], "priorityClassName")):
				t.Errorf("%s on %s (kubelet %s) warns %q, want one warning about its priorityClassName", warnedFile, n.name, n.kubeletVersion, warnings)
			case !warns && len(warnings) != 0:
				t.Errorf("%s on %s (kubelet %s) warns %q; that kubelet logs no such warning", warnedFile, n.name, n.kubeletVersion, warnings)
			}
			// The kubelet logs the warning once per process, for the
			// first pod with it: its log has it, whichever pod it names.
			if got := logHas(t, n.kubeletLog, priorityWarning); got != warns {
				t.Errorf("the kubelet's log on %s (kubelet %s) has %q: %v, want %v", n.name, n.kubeletVersion, priorityWarning, got, warns)
			}
		})
	}
}

// logHas reports whether a line of the log file holds every one of words.
func logHas(t *testing.T, log string, words ...string) bool {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatalf("reading the kubelet's log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(l, w) }) {
			return true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the kubelet's log %s: %v", log, err)
	}
	return false
}

// configMapStaticPod is a static pod that mounts a ConfigMap, which a
// kubelet with PreventStaticPodAPIReferences refuses.
func configMapStaticPod(c *cluster.Cluster, name string) []byte {
	return sleepingStaticPodWith(c, twoNodesNS, name,
		"  volumes:\n    - name: config\n      configMap: {name: podsrc-e2e}\n",
		"      volumeMounts:\n        - {name: config, mountPath: /config}\n")
}

// priorityStaticPod is a static pod with priority 1000 and no
// priorityClassName, which the v1.37 kubelet warns about.
func priorityStaticPod(c *cluster.Cluster, name string) []byte {
	return sleepingStaticPodWith(c, twoNodesNS, name, "  priority: 1000\n", "")
}
