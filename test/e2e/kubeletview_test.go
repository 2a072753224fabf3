package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/test/cluster"
)

// podKey is what podsrc and the kubelet must agree on for a pod.
type podKey struct {
	Namespace, Name, Source, Hash string
}

// kubeletPods is the first node's kubelet's /pods, keyed as agentConfigPods
// keys podsrc's.
func kubeletPods(ctx context.Context, c *cluster.Cluster) (map[types.UID]podKey, error) {
	return kubeletPodsOn(ctx, c, c.NodeName)
}

// kubeletPodsOn is the named node's kubelet's /pods, keyed as
// agentConfigPods keys podsrc's.
func kubeletPodsOn(ctx context.Context, c *cluster.Cluster, node string) (map[types.UID]podKey, error) {
	l, err := c.KubeletPodsOn(ctx, node)
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

// podViewDiffs lists every pod where the kubelet's view and podsrc's
// differ.
func podViewDiffs(kubelet, podsrc map[types.UID]podKey) []string {
	var diffs []string
	for uid, k := range kubelet {
		if podsrc[uid] != k {
			diffs = append(diffs, fmt.Sprintf("kubelet %s %+v, podsrc %+v", uid, k, podsrc[uid]))
		}
	}
	for uid, k := range podsrc {
		if _, ok := kubelet[uid]; !ok {
			diffs = append(diffs, fmt.Sprintf("podsrc only %s %+v", uid, k))
		}
	}
	return diffs
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
		diffs := podViewDiffs(kp, ap)
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
