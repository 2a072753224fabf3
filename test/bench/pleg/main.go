//go:build unix

// Command pleg measures podsrc's PLEG relist against a real containerd: it
// fills the runtime with host-network pod sandboxes holding sleeping
// containers of the test image, then measures, interleaved, the bare CRI
// round trip a relist cannot avoid (ListPodSandbox then ListContainers over
// the same socket) and a whole steady-state podsrc relist (pleg.Relist over
// pkg/cri), and prints both, their ratio, the process CPU time per relist and
// the CPU share of a core at a one-second relist period. It removes every
// sandbox and container it made before it exits.
//
// hack/bench-pleg.sh runs it on a standalone containerd of the test cluster;
// it is a main package under test/ so that nothing of it ends up in a podsrc
// binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"sync"
	"syscall"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/pleg/plegstats"
	testcri "github.com/podsrc/podsrc/test/cri"
)

type config struct {
	endpoint     string
	cgroupParent string
	image        string
	pods         int
	perPod       int
	iterations   int
	warmup       int
	periodRun    time.Duration
	parallel     int
	cpuProfile   string
	goal         float64
}

func main() {
	var c config
	flag.StringVar(&c.endpoint, "endpoint", "", "CRI endpoint of the containerd to fill (unix:///path); required")
	flag.StringVar(&c.cgroupParent, "cgroup-parent", "", "cgroup the pods' cgroups go under; required")
	flag.StringVar(&c.image, "image", "", "the test image; required")
	flag.IntVar(&c.pods, "pods", 100, "pod sandboxes to run")
	flag.IntVar(&c.perPod, "containers-per-pod", 2, "sleeping containers per pod")
	flag.IntVar(&c.iterations, "iterations", 2000, "measured relists and bare round trips")
	flag.IntVar(&c.warmup, "warmup", 200, "unmeasured relists and round trips first")
	flag.DurationVar(&c.periodRun, "period-run", 30*time.Second, "how long to run the PLEG at a 1 s period for the CPU share; 0 skips it")
	flag.IntVar(&c.parallel, "parallel", 8, "CRI calls in flight while creating and removing pods")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the back-to-back relists to this file")
	flag.Float64Var(&c.goal, "goal", 1.2, "the relist/bare ratio goal the verdict is against")
	flag.Parse()
	if c.endpoint == "" || c.cgroupParent == "" || c.image == "" || c.pods <= 0 || c.perPod < 0 || c.iterations <= 0 || c.parallel <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, c)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-pleg:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) (err error) {
	setupCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	drv, err := testcri.Dial(setupCtx, c.endpoint)
	if err != nil {
		return err
	}
	defer drv.Close()
	if pods, err := drv.ListPods(setupCtx, nil); err != nil {
		return err
	} else if len(pods) != 0 {
		return fmt.Errorf("the runtime at %s already has %d sandboxes; want an empty one", c.endpoint, len(pods))
	}

	// Whatever happens, remove what was made, within a bound of its own.
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer ccancel()
		start := time.Now()
		if cerr := cleanup(cctx, drv, c.parallel); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleaning up: %w", cerr))
		} else {
			fmt.Printf("cleanup: every sandbox and container removed in %v\n", time.Since(start).Round(time.Millisecond))
		}
	}()

	start := time.Now()
	if err := fill(setupCtx, drv, c); err != nil {
		return err
	}
	nsb, nctr, err := awaitRunning(setupCtx, drv, c.pods, c.pods*c.perPod)
	if err != nil {
		return err
	}
	fmt.Printf("node: %d sandboxes, %d running containers on %s (made in %v)\n", nsb, nctr, c.endpoint, time.Since(start).Round(time.Millisecond))

	client, err := cri.Dial(c.endpoint, cri.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	return measure(ctx, drv, client, c)
}

// fill runs the pods and their containers, c.parallel pods at a time.
func fill(ctx context.Context, drv *testcri.Client, c config) error {
	return parallel(ctx, c.pods, c.parallel, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("bench-%04d", i)
		sb, cfg, err := drv.RunPod(ctx, testcri.Pod{
			Name:         name,
			UID:          "uid-" + name,
			HostNetwork:  true,
			CgroupParent: c.cgroupParent + "/" + name,
		})
		if err != nil {
			return err
		}
		for j := range c.perPod {
			id, err := drv.CreateContainer(ctx, sb, cfg, testcri.Container{Name: fmt.Sprintf("c%d", j), Image: c.image, Args: []string{"-sleep", "0"}})
			if err != nil {
				return err
			}
			if err := drv.StartContainer(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// awaitRunning waits until the runtime lists the sandboxes ready and the
// containers running.
func awaitRunning(ctx context.Context, drv *testcri.Client, sandboxes, containers int) (int, int, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		sbs, err := drv.ListPods(ctx, &runtimeapi.PodSandboxFilter{State: &runtimeapi.PodSandboxStateValue{State: runtimeapi.PodSandboxState_SANDBOX_READY}})
		if err != nil {
			return 0, 0, err
		}
		ctrs, err := drv.ListContainers(ctx, &runtimeapi.ContainerFilter{State: &runtimeapi.ContainerStateValue{State: runtimeapi.ContainerState_CONTAINER_RUNNING}})
		if err != nil {
			return 0, 0, err
		}
		if len(sbs) >= sandboxes && len(ctrs) >= containers {
			return len(sbs), len(ctrs), nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("waiting for %d ready sandboxes and %d running containers (have %d, %d): %w", sandboxes, containers, len(sbs), len(ctrs), ctx.Err())
		case <-tick.C:
		}
	}
}

// cleanup stops and removes every sandbox (and so its containers), then
// sweeps whatever is left.
func cleanup(ctx context.Context, drv *testcri.Client, n int) error {
	pods, err := drv.ListPods(ctx, nil)
	if err != nil {
		return err
	}
	err = parallel(ctx, len(pods), n, func(ctx context.Context, i int) error {
		return errors.Join(drv.StopPod(ctx, pods[i].Id), drv.RemovePod(ctx, pods[i].Id))
	})
	return errors.Join(err, drv.RemoveAll(ctx))
}

// parallel calls fn for 0..n-1 with at most width calls in flight and
// returns every error.
func parallel(ctx context.Context, n, width int, fn func(context.Context, int) error) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, width)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return errors.Join(append(errs, ctx.Err())...)
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sample is a set of durations.
type sample []time.Duration

func (s sample) mean() time.Duration {
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return sum / time.Duration(len(s))
}

func (s sample) quantile(q float64) time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[min(len(c)-1, int(q*float64(len(c))))]
}

func (s sample) String() string {
	return fmt.Sprintf("n=%d mean %v p50 %v p90 %v p99 %v", len(s), us(s.mean()), us(s.quantile(0.5)), us(s.quantile(0.9)), us(s.quantile(0.99)))
}

// us rounds to the microsecond for printing.
func us(d time.Duration) time.Duration { return d.Round(time.Microsecond) }

// cpuTime returns the user and system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bare is the round trip every relist makes: both lists, unfiltered, with
// the generated client and nothing else.
func bare(ctx context.Context, rs runtimeapi.RuntimeServiceClient) error {
	if _, err := rs.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{}); err != nil {
		return fmt.Errorf("bare ListPodSandbox: %w", err)
	}
	if _, err := rs.ListContainers(ctx, &runtimeapi.ListContainersRequest{}); err != nil {
		return fmt.Errorf("bare ListContainers: %w", err)
	}
	return nil
}

func measure(ctx context.Context, drv *testcri.Client, client *cri.Client, c config) error {
	// The first relist inspects every pod; the channel holds every event
	// of one relist.
	capacity := 4 * (c.pods*(c.perPod+1) + 10)
	stats := plegstats.New(plegstats.Options{ChannelCapacity: capacity, HistoryLength: c.iterations})
	g := pleg.New(client, pleg.Options{ChannelCapacity: capacity, Observer: stats})
	if err := g.Relist(ctx); err != nil {
		return err
	}
	first := stats.Stats()
	fmt.Printf("first relist (inspects every pod): %v, %d events\n", us(time.Duration(first.RelistDuration.LastSeconds*float64(time.Second))), first.EventsSent[pleg.ContainerStarted])

	// Interleaved wall times, so that both see the same machine load.
	for range c.warmup {
		if err := bare(ctx, drv.Runtime); err != nil {
			return err
		}
		if err := g.Relist(ctx); err != nil {
			return err
		}
	}
	base := stats.Stats()
	var bareS, relistS sample
	for i := range c.iterations {
		// Alternate which goes first, so neither always follows the other.
		for k := range 2 {
			t := time.Now()
			if (i+k)%2 == 0 {
				if err := bare(ctx, drv.Runtime); err != nil {
					return err
				}
				bareS = append(bareS, time.Since(t))
			} else {
				if err := g.Relist(ctx); err != nil {
					return err
				}
				relistS = append(relistS, time.Since(t))
			}
		}
	}
	st := stats.Stats()
	if ev := computed(st) - computed(base); ev != 0 || st.RelistFailures != 0 {
		return fmt.Errorf("the node was not steady: %d events, %d failed relists", ev, st.RelistFailures)
	}
	own := st.RelistDuration
	fmt.Printf("bare ListPodSandbox+ListContainers: %v\n", bareS)
	fmt.Printf("podsrc relist (Relist wall time):   %v\n", relistS)
	fmt.Printf("podsrc relist (its relistDuration): window %d p50 %v p99 %v; ListPodSandbox p50 %v, ListContainers p50 %v\n",
		own.Window, us(secs(own.P50Seconds)), us(secs(own.P99Seconds)),
		us(secs(st.Calls[pleg.CallListPodSandbox].P50Seconds)), us(secs(st.Calls[pleg.CallListContainers].P50Seconds)))
	rMean := float64(relistS.mean()) / float64(bareS.mean())
	rP50 := float64(relistS.quantile(0.5)) / float64(bareS.quantile(0.5))
	verdict := "meets"
	if rMean > c.goal {
		verdict = "MISSES"
	}
	fmt.Printf("ratio relist/bare: mean %.3fx, p50 %.3fx (%s the goal of %.2fx)\n", rMean, rP50, verdict, c.goal)

	// CPU per operation, back to back, each alone.
	cpuBare, wallBare, err := cpuPer(c.iterations, func() error { return bare(ctx, drv.Runtime) })
	if err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return fmt.Errorf("creating the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("starting the CPU profile: %w", err)
		}
	}
	cpuRelist, wallRelist, err := cpuPer(c.iterations, func() error { return g.Relist(ctx) })
	if c.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	fmt.Printf("CPU per bare round trip: %v (wall %v); CPU per relist: %v (wall %v), back to back, %d each\n",
		us(cpuBare), us(wallBare), us(cpuRelist), us(wallRelist), c.iterations)

	if c.periodRun > 0 {
		return periodic(ctx, client, c)
	}
	return nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// computed counts every event the PLEG computed, of any type.
func computed(st plegstats.Stats) uint64 {
	var n uint64
	for _, c := range st.EventsComputed {
		n += c
	}
	return n
}

// cpuPer runs fn n times and returns the process CPU time and the wall time
// per call.
func cpuPer(n int, fn func() error) (time.Duration, time.Duration, error) {
	cpu, wall := cpuTime(), time.Now()
	for range n {
		if err := fn(); err != nil {
			return 0, 0, err
		}
	}
	return (cpuTime() - cpu) / time.Duration(n), time.Since(wall) / time.Duration(n), nil
}

// periodic runs a fresh PLEG at the kubelet's one-second period, as the agent
// does, and reports the CPU share of a core it used once past its first
// relist.
func periodic(ctx context.Context, client *cri.Client, c config) error {
	capacity := 4 * (c.pods*(c.perPod+1) + 10)
	stats := plegstats.New(plegstats.Options{ChannelCapacity: capacity})
	g := pleg.New(client, pleg.Options{RelistPeriod: time.Second, ChannelCapacity: capacity, Observer: stats})
	if err := g.Relist(ctx); err != nil {
		return err
	}
	runCtx, cancel := context.WithTimeout(ctx, c.periodRun)
	defer cancel()
	before := stats.Stats().Relists
	cpu, wall := cpuTime(), time.Now()
	g.Run(runCtx)
	used, elapsed := cpuTime()-cpu, time.Since(wall)
	st := stats.Stats()
	n := st.Relists - before
	if n == 0 || st.RelistFailures != 0 {
		return fmt.Errorf("periodic run: %d relists, %d failed", n, st.RelistFailures)
	}
	fmt.Printf("at a 1s period for %v: %d relists, CPU %v = %.3f%% of a core (%v per relist, everything in the process included)\n",
		elapsed.Round(time.Millisecond), n, us(used), 100*float64(used)/float64(elapsed), us(used/time.Duration(n)))
	return ctx.Err()
}
