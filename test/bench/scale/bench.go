//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podsrc/podsrc/test/cluster"
)

// result is one benchmark run's figures.
type result struct {
	opts          options
	sources, pods []oneShot
	watch         watchResult
}

// bench sets up the simulated nodes, measures and cleans up.
func bench(ctx context.Context, c *cluster.Cluster, o options) (res result, err error) {
	res.opts = o
	if o.Nodes < 1 || o.PodsPerNode < 0 || o.Runs < 1 || o.Probes < 1 {
		return res, fmt.Errorf("want at least 1 node, run and probe, and no negative pod count")
	}
	pid, err := apiserverPID(c)
	if err != nil {
		return res, err
	}
	s, err := startSim(ctx, c.Client, c.NetNSPath, o.Nodes, o.PodsPerNode)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, s.close(context.WithoutCancel(ctx))) }()
	p := plugin{bin: o.Plugin, kubeconfig: c.Kubeconfig, selection: []string{"--node-selector", s.selector}, apiserverPID: pid}

	// The agents fetch their pods once started; wait, bounded, until a
	// pods run shows every node with all of them.
	wantPods := o.Nodes * o.PodsPerNode
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := p.run(ctx, "pods")
		if err == nil && r.Nodes == o.Nodes && r.Items == wantPods {
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("pods never showed %d nodes with %d pods in all (last: %d nodes, %d pods, error %v)", o.Nodes, wantPods, r.Nodes, r.Items, err)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	for range o.Runs {
		r, err := p.run(ctx, "sources")
		if err != nil {
			return res, err
		}
		if r.Nodes != o.Nodes {
			return res, fmt.Errorf("sources answered for %d of %d nodes", r.Nodes, o.Nodes)
		}
		res.sources = append(res.sources, r)
		r, err = p.run(ctx, "pods")
		if err != nil {
			return res, err
		}
		if r.Nodes != o.Nodes || r.Items != wantPods {
			return res, fmt.Errorf("pods showed %d nodes and %d pods, want %d and %d", r.Nodes, r.Items, o.Nodes, wantPods)
		}
		res.pods = append(res.pods, r)
	}
	res.watch, err = p.watch(ctx, s, s.names[len(s.names)/2], o.Probes, o.ProbeGap, o.WatchLimit)
	return res, err
}

// apiserverPID reads the API server's PID file.
func apiserverPID(c *cluster.Cluster) (int, error) {
	path := filepath.Join(cluster.RunDir(), "pids", "kube-apiserver.pid")
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading the API server's PID: %w", err)
	}
	// "PID STARTTIME" (hack/cluster.sh).
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s is empty", path)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return pid, nil
}

// median is the run with the median wall time.
func median(rs []oneShot) oneShot {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b oneShot) int { return int(a.Wall - b.Wall) })
	return s[len(s)/2]
}

func (r result) print(w io.Writer) {
	o := r.opts
	fmt.Fprintf(w, "%d simulated nodes, %d static pods each, through the API server's node proxy (median of %d runs; watch: %d probes on one node)\n\n",
		o.Nodes, o.PodsPerNode, len(r.sources), len(r.watch.Latencies))
	fmt.Fprintln(w, "| measure | wall | plugin CPU | plugin RSS | API server CPU | goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, c := range []struct {
		name string
		rs   []oneShot
	}{{"sources", r.sources}, {"pods", r.pods}} {
		m := median(c.rs)
		fmt.Fprintf(w, "| `%s` (%d nodes, %d items) | %s | %s | %s (max) | %s | < 5 s |\n", c.name, m.Nodes, m.Items,
			secs(m.Wall), secs(m.CPU), mib(m.MaxRSS), secs(m.APICPU))
	}
	wr := r.watch
	fmt.Fprintf(w, "| `watch`: every stream open, first event of each printed | %s | %s | | %s | |\n",
		secs(wr.Connect), secs(wr.ConnectCPU), secs(wr.ConnectAPICPU))
	fmt.Fprintf(w, "| `watch`: %d streams open, steady | %s | %s (%.1f%% of a core) | %s (%s peak) | %s (%.1f%% of a core) | |\n",
		o.Nodes, secs(wr.Steady), secs(wr.SteadyCPU), pct(wr.SteadyCPU, wr.Steady), mib(wr.RSS), mib(wr.HWM),
		secs(wr.SteadyAPICPU), pct(wr.SteadyAPICPU, wr.Steady))
	fmt.Fprintf(w, "| `watch`: event published on one node → printed | p50 %s, p99 %s, max %s | | | | |\n",
		ms(percentile(wr.Latencies, 50)), ms(percentile(wr.Latencies, 99)), ms(slices.Max(wr.Latencies)))
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func ms(d time.Duration) string   { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func mib(b int64) string          { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
func pct(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
