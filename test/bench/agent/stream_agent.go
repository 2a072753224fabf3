//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/journal"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/test/bench/internal/procstat"
)

// streamAgentCommand is the child process of "agent stream": the agent whose
// RSS and CPU are measured, kept apart from the subscribers' own work.
const streamAgentCommand = "stream-agent"

// agentResult is what the child reports about its publishing window.
type agentResult struct {
	Published  uint64        `json:"published"`
	LastSeq    uint64        `json:"lastSeq"`
	Window     time.Duration `json:"window"`
	CPU        time.Duration `json:"cpu"`
	RSSMax     int64         `json:"rssMax"`
	RSSEnd     int64         `json:"rssEnd"`
	HWM        int64         `json:"hwm"`
	RSSBefore  int64         `json:"rssBefore"`
	HeapInuse  uint64        `json:"heapInuse"`
	GCs        uint32        `json:"gcs"`
	Goroutines int           `json:"goroutines"`
}

// runStreamAgent runs an agent with no sources on loopback, prints
// "listening ADDR", publishes at the rate once "start" comes on stdin,
// prints "result JSON" and stops when stdin closes.
func runStreamAgent(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet(streamAgentCommand, flag.ContinueOnError)
	rate := fs.Int("rate", 10000, "events published per second")
	duration := fs.Duration("duration", 30*time.Second, "how long to publish")
	buffer := fs.Int("event-buffer", agent.DefaultEventBuffer, "the agent's --event-buffer")
	heartbeat := fs.Duration("heartbeat", agent.DefaultHeartbeat, "the agent's --heartbeat")
	profiling := fs.Bool("enable-profiling", true, "serve /debug/pprof/ on a loopback port of its own (the agent logs it)")
	journalDir := fs.String("journal-dir", "", "the agent's --journal-dir; empty keeps the journal off")
	journalMaxBytes := fs.Int64("journal-max-bytes", journal.DefaultMaxBytes, "the agent's --journal-max-bytes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	klog.SetOutput(os.Stderr)
	events := eventring.New(*buffer, nil)
	cfg := &agent.Config{
		Node:            nodeenv.Env{NodeName: "bench"},
		PLEG:            pleg.Options{RelistPeriod: pleg.DefaultRelistPeriod, RelistThreshold: pleg.DefaultRelistThreshold},
		ListenAddress:   "127.0.0.1:0",
		Mode:            merge.Incremental,
		EventBuffer:     *buffer,
		Events:          events,
		Heartbeat:       *heartbeat,
		EnableProfiling: *profiling,

		ProfilingAddress: "127.0.0.1:0",
		Limits:           streamLimits(),
	}
	if *journalDir != "" {
		cfg.Journal = agent.JournalConfig{Dir: *journalDir, MaxBytes: *journalMaxBytes, MaxAge: journal.DefaultMaxAge}
	}
	a, err := agent.New(cfg, kubeletminor.V136, nil)
	if err != nil {
		return fmt.Errorf("creating the agent: %w", err)
	}
	lis, err := net.Listen("tcp", cfg.ListenAddress)
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- a.Run(ctx, lis, nil) }()
	fmt.Printf("listening %s\n", lis.Addr())

	// The parent writes "start", then closes stdin to stop the agent.
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok || l != "start" {
			cancel()
			return errors.Join(errors.New("stdin closed before start"), <-runErr)
		}
	case err := <-runErr:
		return fmt.Errorf("agent stopped before the benchmark: %w", err)
	}

	res, err := publish(ctx, events, *rate, *duration)
	if err != nil {
		cancel()
		return errors.Join(err, <-runErr)
	}
	out, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	fmt.Printf("result %s\n", out)
	for range lines {
	}
	cancel()
	if err := <-runErr; err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

// streamLimits are the agent's default limits, but that one peer may hold
// every stream: the subscribers all come from 127.0.0.1, as users through
// the API server's proxy come from its one address, and the benchmark
// measures the streams, not the per-peer share (bench-agent fair does).
func streamLimits() serve.Limits {
	l := serve.DefaultLimits()
	l.MaxStreamsPerPeer = l.MaxStreams
	l.MaxConnectionsPerPeer = l.MaxConnections
	return l
}

// publish publishes rate events a second into the agent's event ring for d, sampling the
// process's RSS, and returns what it did and cost.
func publish(ctx context.Context, events *eventring.Ring, rate int, d time.Duration) (agentResult, error) {
	pool := eventPool(1000)
	var res agentResult
	if m, err := procstat.ReadMem(0); err == nil {
		res.RSSBefore = m.RSS
	}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := procstat.ReadMem(0); err == nil {
				res.RSSMax = max(res.RSSMax, m.RSS)
			}
			select {
			case <-sampleCtx.Done():
				return
			case <-t.C:
			}
		}
	})

	cpu0 := procstat.SelfCPUTime()
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var sent uint64
	for now := start; ; {
		elapsed := min(now.Sub(start), d)
		target := uint64(float64(rate) * elapsed.Seconds())
		for ; sent < target; sent++ {
			res.LastSeq = events.Publish(pool[sent%uint64(len(pool))])
		}
		if elapsed >= d {
			break
		}
		select {
		case <-ctx.Done():
			stopSampling()
			wg.Wait()
			return res, fmt.Errorf("interrupted: %w", ctx.Err())
		case now = <-tick.C:
		}
	}
	res.Window = time.Since(start)
	res.CPU = procstat.SelfCPUTime() - cpu0
	res.Published = sent
	stopSampling()
	wg.Wait()
	m, err := procstat.ReadMem(0)
	if err != nil {
		return res, err
	}
	res.RSSEnd, res.HWM = m.RSS, m.HWM
	res.RSSMax = max(res.RSSMax, m.RSS)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapInuse, res.GCs, res.Goroutines = ms.HeapInuse, ms.NumGC, runtime.NumGoroutine()
	return res, nil
}

// eventPool returns n events as the agent publishes them, without sequence
// numbers and times (the ring stamps both): four in five are PLEG events of
// 110 pods' containers, the rest config UPDATEs of one pod.
func eventPool(n int) []v1alpha1.Event {
	types3 := []string{string(pleg.ContainerStarted), string(pleg.ContainerDied), string(pleg.ContainerRemoved)}
	sends := true
	out := make([]v1alpha1.Event, n)
	for i := range out {
		pod := i % 110
		name := fmt.Sprintf("web-%d-5d8f7c9b6-%05d", pod, pod*7919%100000)
		uid := types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", pod))
		if i%5 == 4 {
			out[i] = v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: merge.Update.String(), Source: v1alpha1.SourceAPI,
				Pods: []v1alpha1.PodRef{{Name: name, Namespace: "default", UID: uid}}}
			continue
		}
		e := v1alpha1.Event{
			Kind: v1alpha1.EventKindPLEG, PodUID: uid, PodName: name, Namespace: "default",
			Type: types3[i%3], Data: fmt.Sprintf("%064x", i*2654435761), ContainerName: "app", KubeletSends: &sends,
		}
		if e.Type == string(pleg.ContainerDied) {
			code := 137
			e.ExitCode = &code
		}
		out[i] = e
	}
	return out
}
