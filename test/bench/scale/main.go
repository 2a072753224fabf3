//go:build linux

// Command scale measures kubectl podsrc on a simulated cluster of many nodes
// through the test cluster's real API server and its node proxy.
//
// What is real: the API server (its Node objects, its node proxy to every
// node's InternalIP and its CPU), the plugin binary and its fan-out, and each
// node's agent: pkg/agent's HTTP server, limits, snapshots and event
// streams, its URL source and merge. What is synthetic: the nodes (Node
// objects with no kubelet, looking as if theirs never reported), their
// static pods (N per node, served to each agent's URL source from a
// loopback server and decoded without the kubelet's exact hash) and the
// PLEG events (published into each agent's event ring). Every agent runs in this
// one process, each on its own address inside the cluster's network
// namespace (docs/performance.md).
//
// hack/bench-scale.sh builds the plugin and runs it; the 50-node test in
// this package runs the same steps in make test.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/podsrc/podsrc/test/cluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runMain(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-scale: %v\n", err)
		os.Exit(1)
	}
}

func runMain(ctx context.Context) error {
	o := defaultOptions()
	flag.IntVar(&o.Nodes, "nodes", 500, "simulated nodes")
	flag.IntVar(&o.PodsPerNode, "pods", 10, "static pods per simulated node")
	flag.IntVar(&o.Runs, "runs", 3, "runs of sources and of pods (the median is printed)")
	flag.IntVar(&o.Probes, "probes", 50, "events published on one node while watch follows every node")
	flag.StringVar(&o.Plugin, "plugin", "", "the kubectl-podsrc binary (required)")
	flag.Parse()
	if o.Plugin == "" {
		return fmt.Errorf("-plugin: give the kubectl-podsrc binary (hack/bench-scale.sh builds it)")
	}
	c, err := cluster.Load()
	if err != nil {
		return fmt.Errorf("the test cluster (hack/cluster.sh up, under the shared lock): %w", err)
	}
	res, err := bench(ctx, c, o)
	if err != nil {
		return err
	}
	res.print(os.Stdout)
	return nil
}

// options are one benchmark run's settings.
type options struct {
	Nodes, PodsPerNode, Runs, Probes int
	Plugin                           string
	ProbeGap, WatchLimit             time.Duration
}

func defaultOptions() options {
	return options{ProbeGap: 100 * time.Millisecond, WatchLimit: 5 * time.Minute}
}
