package merge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/merge/mergebench"
)

// TestSameOutputAsTheKubelet feeds the benchmark's workload to the
// kubelet's pod config and to podsrc's, with fingerprints (as every source
// sends them) and without (the full comparison), and requires the same
// notifications, pod for pod: the speed must come at no cost in fidelity.
func TestSameOutputAsTheKubelet(t *testing.T) {
	for _, fingerprints := range []bool{true, false} {
		t.Run(fmt.Sprintf("fingerprints=%v", fingerprints), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			kubeletCfg := kubelet(ctx)
			podsrcCfg := podsrc(ctx, fingerprints)
			kubeletUpdates, podsrcUpdates := collect(kubeletCfg), collect(podsrcCfg)

			w := mergebench.NewWorkload(300, 2)
			for step := range 30 {
				if step > 0 {
					w.Advance()
				}
				pods, fps := w.Current()
				kubeletCfg.send(pods, fps)
				pods, fps = w.Current()
				podsrcCfg.send(pods, fps)
				want := 300
				if step > 0 {
					want = 6
				}
				got, exp := podsrcUpdates(want), kubeletUpdates(want)
				if diff := cmp.Diff(exp, got); diff != "" {
					t.Fatalf("step %d: podsrc's notifications differ from the kubelet's (-kubelet +podsrc):\n%s", step, diff)
				}
			}
		})
	}
}

// update is one notification, normalized for comparison.
type update struct {
	Op   string
	Pods []*v1.Pod
}

// collect returns a function that reads updates until they hold n pods and
// returns them normalized: pods sorted by UID within an update, the
// wall-clock config.seen value blanked.
func collect(p pipeline) func(n int) []update {
	return func(n int) []update {
		var out []update
		for got := 0; got < n; {
			op, pods := p.next()
			got += len(pods)
			// Both keep the pods they emit (podsrc shares them), so the
			// placeholder goes into copies.
			pods = slices.Clone(pods)
			for i, pod := range pods {
				if _, ok := pod.Annotations[merge.ConfigSeenAnnotation]; ok {
					cp := *pod
					cp.Annotations = maps.Clone(pod.Annotations)
					cp.Annotations[merge.ConfigSeenAnnotation] = "<seen>"
					pods[i] = &cp
				}
			}
			slices.SortFunc(pods, func(a, b *v1.Pod) int { return strings.Compare(string(a.UID), string(b.UID)) })
			out = append(out, update{Op: op, Pods: pods})
		}
		return out
	}
}
