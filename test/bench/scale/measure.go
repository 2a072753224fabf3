//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/test/bench/internal/procstat"
)

// plugin runs kubectl-podsrc against the simulated nodes.
type plugin struct {
	bin, kubeconfig string
	// selection is how the commands select the simulated nodes.
	selection []string
	// apiserverPID is the API server's process, whose CPU is measured.
	apiserverPID int
}

// oneShot is one run of a command that answers once per node.
type oneShot struct {
	Wall, CPU, APICPU time.Duration
	MaxRSS            int64
	Nodes, Items      int
}

// run runs the command with -o json and counts the nodes and items it
// printed.
func (p plugin) run(ctx context.Context, command string) (oneShot, error) {
	args := append(append([]string{command, "--kubeconfig", p.kubeconfig}, p.selection...), "-o", "json")
	cmd := exec.CommandContext(ctx, p.bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	api0, err := procstat.CPUTime(p.apiserverPID)
	if err != nil {
		return oneShot{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return oneShot{}, fmt.Errorf("starting kubectl podsrc %s: %w", command, err)
	}
	// The child's rusage counts the parent's memory from before exec, so
	// its peak RSS is sampled (VmHWM only grows), once it runs the plugin.
	comm := fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid)
	name := filepath.Base(p.bin)[:min(len(filepath.Base(p.bin)), 15)]
	var hwm int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if c, err := os.ReadFile(comm); err == nil && strings.TrimSpace(string(c)) == name {
				if m, err := procstat.ReadMem(cmd.Process.Pid); err == nil {
					hwm = max(hwm, m.HWM)
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err = cmd.Wait()
	r := oneShot{Wall: time.Since(start)}
	close(done)
	<-sampled
	r.MaxRSS = hwm
	api1, perr := procstat.CPUTime(p.apiserverPID)
	if err != nil {
		return r, fmt.Errorf("kubectl podsrc %s: %w: %s", strings.Join(args, " "), err, lastLines(errOut.String(), 10))
	}
	if perr != nil {
		return r, perr
	}
	r.APICPU = api1 - api0
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var list struct {
		Items []struct {
			NodeName string `json:"nodeName"`
		} `json:"items"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		return r, fmt.Errorf("kubectl podsrc %s: decoding its output: %w", command, err)
	}
	nodes := map[string]bool{}
	for _, it := range list.Items {
		nodes[it.NodeName] = true
	}
	r.Nodes, r.Items = len(nodes), len(list.Items)
	if errOut.Len() > 0 {
		return r, fmt.Errorf("kubectl podsrc %s wrote to stderr: %s", command, lastLines(errOut.String(), 10))
	}
	return r, nil
}

// watchResult is what following every node's stream cost and delivered.
type watchResult struct {
	// Connect is from the start of watch until every node's first event
	// was printed; ConnectCPU and ConnectAPICPU are the plugin's and the
	// API server's CPU in that time.
	Connect, ConnectCPU, ConnectAPICPU time.Duration
	// Steady is a window with every stream open and probes published on
	// one node; SteadyCPU and SteadyAPICPU are the CPU in it.
	Steady, SteadyCPU, SteadyAPICPU time.Duration
	// RSS is the plugin's resident memory at the end, HWM its peak.
	RSS, HWM int64
	// Latencies are the probes' delivery times, publish to printed line.
	Latencies []time.Duration
}

var markerRE = regexp.MustCompile(`scale-marker-(podsrc-scale-[0-9]+)`)

// watch publishes a marker event on every node, starts watch from the
// first event of each node, waits until every node's marker is printed,
// then publishes probes events on node probeNode, one every gap, and times
// each until its line is printed.
func (p plugin) watch(ctx context.Context, s *sim, probeNode string, probes int, gap, limit time.Duration) (watchResult, error) {
	var r watchResult
	events := s.agents.events
	for _, n := range s.names {
		events[n].Publish(plegEvent("scale-marker-" + n))
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := append(append([]string{"watch", "--kubeconfig", p.kubeconfig}, p.selection...), "--since=0", "--kind=pleg", "-o", "json")
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return r, err
	}
	api0, err := procstat.CPUTime(p.apiserverPID)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("starting kubectl podsrc watch: %w", err)
	}
	type line struct {
		text string
		at   time.Time
	}
	lines := make(chan line, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Now()}
		}
	}()
	fail := func(err error) (watchResult, error) {
		cancel()
		for range lines {
		}
		_ = cmd.Wait()
		return r, fmt.Errorf("%w; watch's stderr: %s", err, lastLines(errOut.String(), 10))
	}
	next := func() (line, error) {
		select {
		case l, ok := <-lines:
			if !ok {
				return l, errors.New("kubectl podsrc watch ended")
			}
			return l, nil
		case <-ctx.Done():
			return line{}, fmt.Errorf("kubectl podsrc watch: %w", ctx.Err())
		}
	}

	seen := map[string]bool{}
	for len(seen) < len(s.names) {
		l, err := next()
		if err != nil {
			return fail(fmt.Errorf("%d of %d nodes' first events printed: %w", len(seen), len(s.names), err))
		}
		if m := markerRE.FindStringSubmatch(l.text); m != nil {
			seen[m[1]] = true
		}
	}
	r.Connect = time.Since(start)
	pid := cmd.Process.Pid
	cpu1, err := procstat.CPUTime(pid)
	if err != nil {
		return fail(err)
	}
	api1, err := procstat.CPUTime(p.apiserverPID)
	if err != nil {
		return fail(err)
	}
	r.ConnectCPU, r.ConnectAPICPU = cpu1, api1-api0

	steady := time.Now()
	probeEvents := events[probeNode]
	for i := range probes {
		name := fmt.Sprintf("scale-probe-%d", i)
		published := time.Now()
		probeEvents.Publish(plegEvent(name))
		for {
			l, err := next()
			if err != nil {
				return fail(fmt.Errorf("probe %d on %s: %w", i, probeNode, err))
			}
			if strings.Contains(l.text, `"`+name+`"`) {
				if !strings.Contains(l.text, probeNode) {
					return fail(fmt.Errorf("probe %d published on %s printed for another node: %s", i, probeNode, l.text))
				}
				r.Latencies = append(r.Latencies, l.at.Sub(published))
				break
			}
		}
		select {
		case <-time.After(gap):
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	r.Steady = time.Since(steady)
	cpu2, err := procstat.CPUTime(pid)
	if err != nil {
		return fail(err)
	}
	api2, err := procstat.CPUTime(p.apiserverPID)
	if err != nil {
		return fail(err)
	}
	r.SteadyCPU, r.SteadyAPICPU = cpu2-cpu1, api2-api1
	m, err := procstat.ReadMem(pid)
	if err != nil {
		return fail(err)
	}
	r.RSS, r.HWM = m.RSS, m.HWM
	cancel()
	for range lines {
	}
	_ = cmd.Wait() // stopped by SIGTERM
	return r, nil
}

// plegEvent is a synthetic ContainerStarted of a pod named name.
func plegEvent(name string) v1alpha1.Event {
	sends := true
	return v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, PodUID: types.UID(name), PodName: name, Namespace: "default",
		Type: string(pleg.ContainerStarted), Data: "0123456789abcdef", ContainerName: "app", KubeletSends: &sends}
}

// percentile is the p-th percentile (0-100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(len(l)-n, 0):], "\n")
}
