//go:build linux

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/test/cluster"
)

// TestScale50 runs the scale benchmark's steps with 50 simulated nodes on
// the real API server: sources and pods answer for every node with every
// pod, watch prints every node's first event and each probe published on
// one node, and nothing is left afterwards (Node objects, the interface,
// the guard route). Its time bound is generous: it proves the fan-out
// works at all on a loaded machine; hack/bench-scale.sh measures.
func TestScale50(t *testing.T) {
	c := cluster.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "kubectl-podsrc")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/podsrc/podsrc/cmd/kubectl-podsrc").CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-podsrc: %v\n%s", err, out)
	}
	o := defaultOptions()
	o.Nodes, o.PodsPerNode, o.Runs, o.Probes, o.Plugin = 50, 5, 1, 10, bin
	o.WatchLimit = time.Minute
	res, err := bench(ctx, c, o)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	res.print(&table)
	t.Log("\n" + table.String())

	const bound = 30 * time.Second
	for _, r := range append(res.sources, res.pods...) {
		if r.Wall > bound {
			t.Errorf("a one-shot command over 50 nodes took %s, over the %s bound", r.Wall, bound)
		}
	}
	if res.watch.Connect > bound {
		t.Errorf("watch took %s to print every node's first event, over the %s bound", res.watch.Connect, bound)
	}
	if len(res.watch.Latencies) != o.Probes {
		t.Errorf("%d of %d probes printed", len(res.watch.Latencies), o.Probes)
	}

	l, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: LabelKey})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) > 0 {
		t.Errorf("%d simulated nodes left, e.g. %s", len(l.Items), l.Items[0].Name)
	}
	if linkExists(ctx, c.NetNSPath) {
		t.Errorf("interface %s left in %s", Link, c.NetNSPath)
	}
	if guarded(ctx) {
		t.Errorf("unreachable route to %s left in the root namespace", Subnet)
	}
}
