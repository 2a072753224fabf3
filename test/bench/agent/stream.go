//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"

	"github.com/podsrc/podsrc/test/bench/internal/procstat"
)

// streamConfig are the flags of "agent stream".
type streamConfig struct {
	rate        int
	duration    time.Duration
	subscribers int
	buffer      int
	drain       time.Duration
	maxP99      time.Duration
	// journal is "off", "on" or "both"; journalMaxBytes is the agent's
	// --journal-max-bytes when it is on.
	journal         string
	journalMaxBytes int64
}

// streamRun is one run of the benchmark, with the journal on or off.
type streamRun struct {
	journal bool
	res     agentResult
	metrics map[string]float64
}

// subscriber is what one stream client saw.
type subscriber struct {
	events, heartbeats, gaps, lagging, others uint64
	holes                                     uint64
	lastSeq                                   uint64
	first, last                               time.Time
	hist                                      *histogram
	complete                                  bool
	// connErr is set before the subscriber reports itself connected, err
	// only after: the two are read at different times.
	connErr, err error
}

// runStream is "agent stream": see the package documentation.
func runStream(ctx context.Context, args []string) error {
	var c streamConfig
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	fs.IntVar(&c.rate, "rate", 10000, "events published per second")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "how long to publish")
	fs.IntVar(&c.subscribers, "subscribers", 100, "event streams open over HTTP")
	fs.IntVar(&c.buffer, "event-buffer", 10000, "the agent's --event-buffer")
	fs.DurationVar(&c.drain, "drain", 15*time.Second, "how long the streams may take to deliver the last event after publishing ends")
	fs.DurationVar(&c.maxP99, "max-p99", 100*time.Millisecond, "the p99 delivery latency the verdict accepts")
	fs.StringVar(&c.journal, "journal", "both", "run the agent with its journal off, on, or both in turn (and print the journal's cost per event)")
	fs.Int64Var(&c.journalMaxBytes, "journal-max-bytes", 16<<20, "the agent's --journal-max-bytes with the journal on: below what the run publishes, so that the bound is exercised")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.rate <= 0 || c.duration <= 0 || c.subscribers <= 0 || c.journalMaxBytes <= 0 {
		return errors.New("-rate, -duration, -subscribers and -journal-max-bytes must be positive")
	}
	var modes []bool
	switch c.journal {
	case "off":
		modes = []bool{false}
	case "on":
		modes = []bool{true}
	case "both":
		modes = []bool{false, true}
	default:
		return fmt.Errorf("-journal must be off, on or both, not %q", c.journal)
	}
	var runs []streamRun
	var errs []error
	for _, on := range modes {
		r, err := streamOnce(ctx, c, on)
		if r != nil {
			runs = append(runs, *r)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("journal %s: %w", onOff(on), err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := reportJournal(c, runs); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// onOff names a journal mode.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// streamOnce runs the benchmark once, with the agent's journal on or off
// (in a temporary directory), and prints its report. It returns the run
// whenever the agent reported one, also when the goal was missed.
func streamOnce(ctx context.Context, c streamConfig, journal bool) (*streamRun, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program: %w", err)
	}
	args := []string{streamAgentCommand, "-rate", strconv.Itoa(c.rate), "-duration", c.duration.String(),
		"-event-buffer", strconv.Itoa(c.buffer)}
	if journal {
		dir, err := os.MkdirTemp("", "podsrc-bench-journal-")
		if err != nil {
			return nil, fmt.Errorf("making the journal's directory: %w", err)
		}
		defer os.RemoveAll(dir)
		args = append(args, "-journal-dir", dir, "-journal-max-bytes", strconv.FormatInt(c.journalMaxBytes, 10))
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("agent stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("agent stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the agent process: %w", err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	// Whatever happens, the agent process ends: stdin closed, then SIGKILL.
	defer func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			fmt.Fprintf(os.Stderr, "bench-agent: agent process %d did not stop; killing it\n", pid)
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	addr, err := expectLine(ctx, lines, "listening ", 20*time.Second)
	if err != nil {
		return nil, err
	}
	base := "http://" + addr

	// The subscribers connect first; the stream starts at the agent's last
	// event, so each must see every event from 1 without a hole or lagging.
	subCtx, cancelSubs := context.WithCancel(ctx)
	defer cancelSubs()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: c.subscribers}}
	subs := make([]*subscriber, c.subscribers)
	var target atomic.Uint64
	var connected, done sync.WaitGroup
	for i := range subs {
		s := &subscriber{hist: newHistogram()}
		subs[i] = s
		connected.Add(1)
		done.Go(func() { s.run(subCtx, client, base, &target, connected.Done) })
	}
	if err := waitGroup(ctx, &connected, 30*time.Second); err != nil {
		return nil, fmt.Errorf("connecting %d subscribers: %w", c.subscribers, err)
	}
	for _, s := range subs {
		if s.connErr != nil {
			return nil, fmt.Errorf("a subscriber could not connect: %w", s.connErr)
		}
	}
	fmt.Fprintf(os.Stderr, "bench-agent: %d subscribers connected to %s; publishing %d events/s for %v\n", c.subscribers, base, c.rate, c.duration)

	cpu0 := procstat.SelfCPUTime()
	start := time.Now()
	if _, err := io.WriteString(stdin, "start\n"); err != nil {
		return nil, fmt.Errorf("starting the agent's publisher: %w", err)
	}
	resLine, err := expectLine(ctx, lines, "result ", c.duration+30*time.Second)
	if err != nil {
		return nil, err
	}
	var res agentResult
	if err := json.Unmarshal([]byte(resLine), &res); err != nil {
		return nil, fmt.Errorf("the agent's result %q: %w", resLine, err)
	}
	target.Store(res.LastSeq)
	drained := waitGroup(ctx, &done, c.drain) == nil
	cancelSubs()
	_ = waitGroup(context.Background(), &done, 10*time.Second)
	clientCPU := procstat.SelfCPUTime() - cpu0
	clientWall := time.Since(start)
	clientMem, _ := procstat.ReadMem(0)
	metrics := scrape(base + v1alpha1.MetricsPath)

	fmt.Printf("\n--- journal %s\n", onOff(journal))
	err = report(c, res, subs, drained, metrics, clientCPU, clientWall, clientMem)
	return &streamRun{journal: journal, res: res, metrics: metrics}, err
}

// expectLine waits for the agent process's line with the prefix.
func expectLine(ctx context.Context, lines <-chan string, prefix string, limit time.Duration) (string, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return "", fmt.Errorf("the agent process ended before printing %q", strings.TrimSpace(prefix))
			}
			if rest, found := strings.CutPrefix(l, prefix); found {
				return rest, nil
			}
		case <-timer.C:
			return "", fmt.Errorf("no %q from the agent process within %v", strings.TrimSpace(prefix), limit)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// waitGroup waits for wg, at most limit.
func waitGroup(ctx context.Context, wg *sync.WaitGroup, limit time.Duration) error {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
		return nil
	case <-time.After(limit):
		return fmt.Errorf("not done within %v", limit)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run reads one stream until it has the target event, the stream ends or
// ctx ends.
func (s *subscriber) run(ctx context.Context, client *http.Client, base string, target *atomic.Uint64, connected func()) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+v1alpha1.EventsPath, nil)
	if err != nil {
		s.connErr = err
		connected()
		return
	}
	resp, err := client.Do(req)
	if err != nil {
		s.connErr = err
		connected()
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.connErr = fmt.Errorf("GET %s: %s", req.URL, resp.Status)
		connected()
		return
	}
	connected()
	br := bufio.NewReaderSize(resp.Body, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) {
				s.err = err
			}
			return
		}
		now := time.Now()
		if !s.line(line, now) {
			return
		}
		if t := target.Load(); t != 0 && s.lastSeq >= t {
			s.complete = true
			return
		}
	}
}

var (
	eventPrefix = []byte(`{"type":"event",`)
	seqKey      = []byte(`"event":{"seq":`)
	timeKey     = []byte(`,"time":"`)
)

// line takes one message; false ends the stream.
func (s *subscriber) line(line []byte, now time.Time) bool {
	if bytes.HasPrefix(line, eventPrefix) {
		seq, t, ok := fastEvent(line)
		if !ok {
			var m v1alpha1.StreamMessage
			if err := json.Unmarshal(line, &m); err != nil || m.Event == nil {
				s.err = fmt.Errorf("undecodable event %q: %v", line, err)
				return false
			}
			seq, t = m.Event.Seq, m.Event.Time.Time
		}
		s.event(seq, t, now)
		return true
	}
	var m v1alpha1.StreamMessage
	if err := json.Unmarshal(line, &m); err != nil {
		s.err = fmt.Errorf("undecodable message %q: %w", line, err)
		return false
	}
	switch m.Type {
	case v1alpha1.MessageEvent:
		s.event(m.Event.Seq, m.Event.Time.Time, now)
	case v1alpha1.MessageHeartbeat:
		s.heartbeats++
	case v1alpha1.MessageGap:
		s.gaps++
	case v1alpha1.MessageLagging:
		s.lagging++
		return false
	default:
		s.others++
	}
	return true
}

func (s *subscriber) event(seq uint64, t, now time.Time) {
	if s.lastSeq != 0 && seq != s.lastSeq+1 {
		s.holes++
	}
	s.lastSeq = seq
	s.events++
	if s.first.IsZero() {
		s.first = now
	}
	s.last = now
	s.hist.add(now.Sub(t))
}

// fastEvent reads the event's seq and time without decoding the whole line.
func fastEvent(line []byte) (uint64, time.Time, bool) {
	i := bytes.Index(line, seqKey)
	if i < 0 {
		return 0, time.Time{}, false
	}
	rest := line[i+len(seqKey):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	seq, err := strconv.ParseUint(string(rest[:j]), 10, 64)
	if err != nil || !bytes.HasPrefix(rest[j:], timeKey) {
		return 0, time.Time{}, false
	}
	rest = rest[j+len(timeKey):]
	k := bytes.IndexByte(rest, '"')
	if k < 0 {
		return 0, time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, string(rest[:k]))
	if err != nil {
		return 0, time.Time{}, false
	}
	return seq, t, true
}

// scrape returns the agent's metrics by name, labels included as the
// exposition writes them (name{label="value"}).
func scrape(url string) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get(url)
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if f, err := strconv.ParseFloat(val, 64); err == nil {
			out[name] = f
		}
	}
	return out
}

// report prints the summary and fails when the goal is missed.
func report(c streamConfig, res agentResult, subs []*subscriber, drained bool, metrics map[string]float64,
	clientCPU, clientWall time.Duration, clientMem procstat.Mem) error {
	all := newHistogram()
	var total, lagging, gaps, holes, heartbeats uint64
	complete, failed := 0, 0
	minRate, maxRate := -1.0, 0.0
	var firstErr error
	for _, s := range subs {
		all.merge(s.hist)
		total += s.events
		lagging += s.lagging
		gaps += s.gaps
		holes += s.holes
		heartbeats += s.heartbeats
		if s.complete && s.holes == 0 && s.gaps == 0 {
			complete++
		}
		if s.err != nil {
			failed++
			if firstErr == nil {
				firstErr = s.err
			}
		}
		r := 0.0
		if s.events > 0 {
			r = float64(s.events) / res.Window.Seconds()
		}
		if minRate < 0 || r < minRate {
			minRate = r
		}
		maxRate = max(maxRate, r)
	}
	win := res.Window.Seconds()
	fmt.Printf("\nstream benchmark: %d subscribers over HTTP on loopback, %d events/s for %v (%d CPUs, %s)\n",
		c.subscribers, c.rate, c.duration, runtime.NumCPU(), runtime.Version())
	fmt.Printf("  published        %d events in %.2fs: %.0f/s (last seq %d)\n", res.Published, win, float64(res.Published)/win, res.LastSeq)
	fmt.Printf("  delivered        %d events: %.0f/s in total, per subscriber %.0f/s (min %.0f, max %.0f)\n",
		total, float64(total)/win, float64(total)/win/float64(len(subs)), minRate, maxRate)
	fmt.Printf("  complete         %d/%d streams got every event, in order, without a hole (drained in time: %v)\n", complete, len(subs), drained)
	fmt.Printf("  latency          p50 %v  p90 %v  p99 %v  p99.9 %v  max %v  mean %v\n",
		all.quantile(0.50), all.quantile(0.90), all.quantile(0.99), all.quantile(0.999), all.max.Round(time.Microsecond), all.mean().Round(time.Microsecond))
	fmt.Printf("  lagging          %d streams told lagging (agent counter %v), %d gaps, %d holes, %d streams failed, %d heartbeats\n",
		lagging, metrics["podsrc_stream_lagging_total"], gaps, holes, failed, heartbeats)
	fmt.Printf("  agent process    CPU %.2f cores (%.1fs in %.1fs); RSS before %s, max %s, end %s, VmHWM %s; heap in use %s, %d GCs, %d goroutines\n",
		res.CPU.Seconds()/win, res.CPU.Seconds(), win, mib(res.RSSBefore), mib(res.RSSMax), mib(res.RSSEnd), mib(res.HWM),
		mib(int64(res.HeapInuse)), res.GCs, res.Goroutines)
	fmt.Printf("  client process   CPU %.2f cores (%.1fs in %.1fs) for the %d subscribers; VmHWM %s\n",
		clientCPU.Seconds()/clientWall.Seconds(), clientCPU.Seconds(), clientWall.Seconds(), len(subs), mib(clientMem.HWM))
	if firstErr != nil {
		fmt.Printf("  first error      %v\n", firstErr)
	}
	var problems []string
	if complete != len(subs) {
		problems = append(problems, fmt.Sprintf("%d of %d streams incomplete", len(subs)-complete, len(subs)))
	}
	if lagging > 0 || metrics["podsrc_stream_lagging_total"] > 0 {
		problems = append(problems, "streams lagged")
	}
	if p99 := all.quantile(0.99); p99 > c.maxP99 {
		problems = append(problems, fmt.Sprintf("p99 %v over %v", p99, c.maxP99))
	}
	if float64(res.Published) < 0.99*float64(c.rate)*c.duration.Seconds() {
		problems = append(problems, "the publisher fell short of the rate")
	}
	if len(problems) > 0 {
		fmt.Printf("  verdict          FAIL: %s\n", strings.Join(problems, "; "))
		return errors.New("the stream benchmark missed its goal")
	}
	fmt.Printf("  verdict          PASS: no stream lagged, p99 within %v\n", c.maxP99)
	return nil
}
