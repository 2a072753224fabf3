//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// hostileConfig are the flags of "agent hostile".
type hostileConfig struct {
	agentBin    string
	pods        int
	clients     []int
	phase       time.Duration
	goodStreams int
	peers       int
	churn       time.Duration
	limitMiB    float64
	livezGoal   time.Duration
}

// hostilePhase is what one number of hostile clients did to the agent.
type hostilePhase struct {
	clients, refused   int
	rssMax             int64
	livez              *histogram
	livezFailures      int
	events, holes      uint64
	gaps, lagging, end int
}

// runHostile is "agent hostile": the real agent binary with a file source
// of -pods static pods on loopback; well-behaved streams from 127.0.0.1
// follow its events (a manifest rewritten every -churn) from start to end,
// and a prober from its own address asks /livez every 100 ms with a new
// connection, as the kubelet does. For each number of -clients, as many
// hostile clients from -peers other loopback addresses, a third each, ask
// for /pods and never read, send their headers a line a second
// (slowloris), or open a stream and never read, for -phase. Each phase
// prints the agent's peak RSS, the /livez latencies and what the good
// streams missed.
func runHostile(ctx context.Context, args []string) error {
	var c hostileConfig
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	fs.StringVar(&c.agentBin, "agent", "", "the podsrc-agent binary (required)")
	fs.IntVar(&c.pods, "pods", 1000, "static pods in the agent's file source")
	clients := fs.String("clients", "0,1000", "hostile clients of each phase, comma-separated")
	fs.DurationVar(&c.phase, "phase", 20*time.Second, "how long each phase lasts")
	fs.IntVar(&c.goodStreams, "good-streams", 10, "well-behaved event streams")
	fs.IntVar(&c.peers, "peers", 8, "loopback addresses the hostile clients come from")
	fs.DurationVar(&c.churn, "churn", 200*time.Millisecond, "how often a manifest is rewritten, which makes events")
	fs.Float64Var(&c.limitMiB, "limit-mib", 256, "the agent's memory limit (its GOMEMLIMIT, as in the DaemonSet)")
	fs.DurationVar(&c.livezGoal, "livez-goal", 100*time.Millisecond, "the /livez p99 goal")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.agentBin == "" {
		return errors.New("-agent is required")
	}
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return fmt.Errorf("-clients: %q is not a number of clients", s)
		}
		c.clients = append(c.clients, n)
	}
	if c.peers < 1 || c.peers > 200 {
		return fmt.Errorf("-peers must be between 1 and 200, not %d", c.peers)
	}

	a, err := startStaticAgent(ctx, c.agentBin, c.pods, c.limitMiB)
	if err != nil {
		return err
	}
	defer func() { a.stop(err != nil) }()
	base, addr, pid, dir := a.base, a.addr, a.pid, a.dir

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopRun()
	streams := make([]*goodStream, c.goodStreams)
	for i := range streams {
		streams[i] = &goodStream{}
		wg.Go(func() { streams[i].run(runCtx, base) })
	}
	wg.Go(func() { churn(runCtx, dir, c.churn) })

	var phases []hostilePhase
	for _, n := range c.clients {
		p, perr := hostileRun(runCtx, c, base, addr, pid, n, streams)
		if perr != nil {
			err = perr
			return err
		}
		phases = append(phases, p)
		fmt.Fprintf(os.Stderr, "bench-agent: %d hostile clients done\n", n)
	}
	return reportHostile(c, phases)
}

// writeStaticPod writes pod i's manifest atomically; mark changes it.
func writeStaticPod(dir string, i int, mark string) error {
	p := staticPod(i)
	if mark != "" {
		p.Annotations = map[string]string{"bench/mark": mark}
	}
	data, err := yaml.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding pod %d: %w", i, err)
	}
	name := fmt.Sprintf("web-%d.yaml", i)
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("writing pod %d: %w", i, err)
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// churn rewrites the first manifest every period until ctx ends.
func churn(ctx context.Context, dir string, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := writeStaticPod(dir, 0, strconv.Itoa(n)); err != nil {
			fmt.Fprintf(os.Stderr, "bench-agent: churn: %v\n", err)
		}
	}
}

// goodStream reads the event stream as a client should and counts what
// it missed.
type goodStream struct {
	events, holes          atomic.Uint64
	gaps, lagging, endings atomic.Int64
}

func (g *goodStream) run(ctx context.Context, base string) {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var last uint64
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+v1alpha1.EventsPath, nil)
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		g.endings.Add(1)
		fmt.Fprintf(os.Stderr, "bench-agent: a good stream was refused: %v %v\n", err, resp)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m v1alpha1.StreamMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		switch m.Type {
		case v1alpha1.MessageHeartbeat:
			if last == 0 {
				last = m.Seq
			}
		case v1alpha1.MessageEvent:
			if last != 0 && m.Event.Seq != last+1 {
				g.holes.Add(m.Event.Seq - last - 1)
			}
			last = m.Event.Seq
			g.events.Add(1)
		case v1alpha1.MessageGap:
			g.gaps.Add(1)
		case v1alpha1.MessageLagging:
			g.lagging.Add(1)
		}
	}
	if ctx.Err() == nil {
		g.endings.Add(1)
	}
}

// hostileRun runs one phase with n hostile clients.
func hostileRun(ctx context.Context, c hostileConfig, base, addr string, pid, n int, streams []*goodStream) (hostilePhase, error) {
	p := hostilePhase{clients: n, livez: newHistogram()}
	before := scrapeRefused(base)
	startEvents, startHoles, startGaps, startLag, startEnd := streamTotals(streams)

	ph := newAttackPhase(ctx, c.phase)
	defer ph.end()
	ph.wg.Go(func() {
		for i := range n {
			if ph.ctx.Err() != nil {
				return
			}
			conn, err := ph.dial(net.IPv4(127, 0, 0, byte(2+i%c.peers)), addr)
			if err != nil {
				continue
			}
			switch i % 3 {
			case 0:
				_, _ = io.WriteString(conn, "GET /api/v1alpha1/pods HTTP/1.1\r\nHost: agent\r\n\r\n")
			case 1:
				ph.wg.Go(func() { slowloris(ph.ctx, conn) })
			case 2:
				_, _ = io.WriteString(conn, "GET /api/v1alpha1/events?since=0 HTTP/1.1\r\nHost: agent\r\n\r\n")
			}
		}
	})
	// The prober: the kubelet's liveness probe, from the node's address.
	prober := clientFrom(net.IPv4(127, 0, 0, 250))
	var mu sync.Mutex
	ph.every(100*time.Millisecond, func() {
		start := time.Now()
		resp, err := prober.Get(base + v1alpha1.LivezPath)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil || resp.StatusCode != http.StatusOK {
			p.livezFailures++
		} else {
			p.livez.add(time.Since(start))
		}
	})
	var err error
	if p.rssMax, err = ph.peakRSS(pid); err != nil {
		return p, err
	}
	ph.end()
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	p.refused = int(scrapeRefused(base) - before)
	events, holes, gaps, lag, end := streamTotals(streams)
	p.events, p.holes = events-startEvents, holes-startHoles
	p.gaps, p.lagging, p.end = int(gaps-startGaps), int(lag-startLag), int(end-startEnd)
	return p, nil
}

// slowloris sends a request's headers a line a second, never finishing.
func slowloris(ctx context.Context, conn net.Conn) {
	if _, err := io.WriteString(conn, "GET /api/v1alpha1/pods HTTP/1.1\r\nHost: agent\r\n"); err != nil {
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := fmt.Fprintf(conn, "X-Slow-%d: 1\r\n", i); err != nil {
			return
		}
	}
}

func streamTotals(streams []*goodStream) (events, holes uint64, gaps, lagging, endings int64) {
	for _, s := range streams {
		events += s.events.Load()
		holes += s.holes.Load()
		gaps += s.gaps.Load()
		lagging += s.lagging.Load()
		endings += s.endings.Load()
	}
	return
}

// scrapeRefused sums podsrc_refused_total over its limits (0 for an agent
// without limits).
func scrapeRefused(base string) float64 {
	resp, err := http.Get(base + v1alpha1.MetricsPath)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "podsrc_refused_total{") {
			continue
		}
		if f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += f
		}
	}
	return sum
}

func reportHostile(c hostileConfig, phases []hostilePhase) error {
	fmt.Printf("hostile clients against podsrc-agent: %d pods, %d good streams, hostile clients from %d addresses, %v per phase, GOMEMLIMIT %.0f MiB\n",
		c.pods, c.goodStreams, c.peers, c.phase, c.limitMiB)
	fmt.Printf("%-8s %-8s %-11s %-10s %-10s %-10s %-6s %-8s %-6s %-5s %-8s %s\n",
		"CLIENTS", "REFUSED", "AGENT RSS", "LIVEZ P50", "LIVEZ P99", "LIVEZ MAX", "FAILED", "EVENTS", "HOLES", "GAPS", "LAGGING", "ENDED")
	ok := true
	for _, p := range phases {
		fmt.Printf("%-8d %-8d %-11s %-10s %-10s %-10s %-6d %-8d %-6d %-5d %-8d %d\n",
			p.clients, p.refused, mib(p.rssMax), p.livez.quantile(0.5).Round(100*time.Microsecond),
			p.livez.quantile(0.99).Round(100*time.Microsecond), p.livez.quantile(1).Round(100*time.Microsecond),
			p.livezFailures, p.events, p.holes, p.gaps, p.lagging, p.end)
		if float64(p.rssMax) >= c.limitMiB*(1<<20) || p.livez.quantile(0.99) >= c.livezGoal || p.livezFailures > 0 ||
			p.holes > 0 || p.gaps > 0 || p.lagging > 0 || p.end > 0 || p.events == 0 {
			ok = false
		}
	}
	if !ok {
		fmt.Printf("goals missed: agent RSS under %.0f MiB, /livez p99 under %v with no failure, good streams with events and no hole, gap, lagging or end\n", c.limitMiB, c.livezGoal)
		return errors.New("goals missed")
	}
	fmt.Printf("goals met: agent RSS under %.0f MiB, /livez p99 under %v, good streams lost nothing\n", c.limitMiB, c.livezGoal)
	return nil
}
