//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// fairConfig are the flags of "agent fair".
type fairConfig struct {
	agentBin string
	pods     int
	phase    time.Duration
	peers    int
	limitMiB float64
	// probePort runs the agent with --probe-address; without it (an agent
	// from before issue 28) the probe goes to the API's port.
	probePort bool
}

// attacker is one way a pod on the node's network tries to silence the
// agent: attack opens its connection number i from the dialer given and
// holds it until ctx ends.
type attacker struct {
	name string
	// conns is how many connections it opens in each wave; waves come
	// every waveEvery until the phase ends, each kept open to the end.
	conns, waves int
	attack       func(ctx context.Context, conn net.Conn)
}

// fairPhase is what well-behaved clients got through during one attack.
type fairPhase struct {
	attacker, from         string
	opened                 int
	probes, sources, watch checks
	rssMax                 int64
}

// checks counts a well-behaved client's tries and successes.
type checks struct{ ok, tries atomic.Int64 }

func (c *checks) String() string { return fmt.Sprintf("%d/%d", c.ok.Load(), c.tries.Load()) }

// waveEvery is how often an attacker opens its connections again, as one
// would whose connections the agent cuts off.
const waveEvery = 2 * time.Second

// attackers are the attacks of issue 28, each bounded in connections.
func attackers() []attacker {
	get := func(path string) func(context.Context, net.Conn) {
		return func(ctx context.Context, conn net.Conn) {
			_, _ = io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: agent\r\n\r\n")
			<-ctx.Done()
		}
	}
	return []attacker{
		// Eight clients that ask for the pod list and never read it,
		// with a small receive buffer: the agent's writes block.
		{name: "slow /pods readers", conns: 8, waves: 5, attack: get(v1alpha1.PodsPath)},
		// As many streams as the agent allows in all, never read.
		{name: "streams never read", conns: 128, waves: 1, attack: get(v1alpha1.EventsPath)},
		// The listener's total and reserve in idle keep-alive
		// connections: one request each, answered and read.
		{name: "idle keep-alive", conns: 544, waves: 1, attack: func(ctx context.Context, conn net.Conn) {
			if _, err := io.WriteString(conn, "GET /version HTTP/1.1\r\nHost: agent\r\n\r\n"); err == nil {
				if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			<-ctx.Done()
		}},
		// The same number sending their headers a line a second.
		{name: "slowloris", conns: 544, waves: 1, attack: slowloris},
	}
}

// runFair is "agent fair": the real agent binary with -pods static pods
// and its probes on a listener of their own, attacked in turn by each of
// attackers(), from one loopback address and from -peers addresses, for
// -phase each. Meanwhile the kubelet's probe (/livez on the probe port from
// 127.0.0.1), a well-behaved `sources` (GET /sources from 127.0.0.250) and
// a `watch` (a stream from 127.0.0.251, until its opening heartbeat) try
// every 250 ms; it prints how many got through and the agent's peak RSS.
func runFair(ctx context.Context, args []string) (err error) {
	var c fairConfig
	fs := flag.NewFlagSet("fair", flag.ContinueOnError)
	fs.StringVar(&c.agentBin, "agent", "", "the podsrc-agent binary (required)")
	fs.IntVar(&c.pods, "pods", 1000, "static pods in the agent's file source")
	fs.DurationVar(&c.phase, "phase", 10*time.Second, "how long each attack lasts")
	fs.IntVar(&c.peers, "peers", 8, "loopback addresses the attacks from many addresses come from")
	fs.Float64Var(&c.limitMiB, "limit-mib", 256, "the agent's memory limit (its GOMEMLIMIT, as in the DaemonSet)")
	fs.BoolVar(&c.probePort, "probe-port", true, "run the agent with its probes on a port of their own (--probe-address); false for an agent without it, whose probes are on the API's port")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.agentBin == "" {
		return errors.New("-agent is required")
	}
	if c.peers < 2 || c.peers > 200 || c.phase <= 0 || c.phase > 5*time.Minute {
		return fmt.Errorf("-peers must be between 2 and 200 and -phase between 0 and 5m, not %d and %v", c.peers, c.phase)
	}
	var agentArgs []string
	probeAddr := ""
	if c.probePort {
		port, err := freePort()
		if err != nil {
			return err
		}
		probeAddr = "127.0.0.1:" + strconv.Itoa(port)
		agentArgs = append(agentArgs, "--probe-address="+probeAddr)
	}
	a, err := startStaticAgent(ctx, c.agentBin, c.pods, c.limitMiB, agentArgs...)
	if err != nil {
		return err
	}
	defer func() { a.stop(err != nil) }()
	probeURL := a.base
	if probeAddr != "" {
		probeURL = "http://" + probeAddr
	}

	var phases []*fairPhase
	for _, at := range attackers() {
		for _, peers := range []int{1, c.peers} {
			p, perr := fairRun(ctx, c, a, probeURL, at, peers)
			if perr != nil {
				return perr
			}
			phases = append(phases, p)
			fmt.Fprintf(os.Stderr, "bench-agent: %s from %s done\n", p.attacker, p.from)
			if err := settle(ctx, a.base); err != nil {
				return err
			}
		}
	}
	probeOn := "the probe port"
	if !c.probePort {
		probeOn = "the API's port (-probe-port=false)"
	}
	fmt.Printf("attackers against podsrc-agent: %d pods, %v per attack, from 127.0.0.2 or from %d addresses; well-behaved clients try every 250 ms: the kubelet's /livez on %s, `sources` and `watch` on the API's port (got through/tried), GOMEMLIMIT %.0f MiB\n",
		c.pods, c.phase, c.peers, probeOn, c.limitMiB)
	fmt.Printf("%-20s %-14s %-7s %-9s %-9s %-9s %s\n", "ATTACKER", "FROM", "CONNS", "PROBES", "SOURCES", "WATCH", "AGENT RSS")
	for _, p := range phases {
		fmt.Printf("%-20s %-14s %-7d %-9s %-9s %-9s %s\n", p.attacker, p.from, p.opened, &p.probes, &p.sources, &p.watch, mib(p.rssMax))
	}
	return nil
}

// fairRun runs one attack from peers addresses and the well-behaved
// clients beside it.
func fairRun(ctx context.Context, c fairConfig, a *staticAgent, probeURL string, at attacker, peers int) (*fairPhase, error) {
	p := &fairPhase{attacker: at.name, from: "1 address"}
	if peers > 1 {
		p.from = strconv.Itoa(peers) + " addresses"
	}
	ph := newAttackPhase(ctx, c.phase)
	defer ph.end()
	ph.wg.Go(func() {
		t := time.NewTicker(waveEvery)
		defer t.Stop()
		for range at.waves {
			for i := range at.conns {
				conn, err := ph.dial(net.IPv4(127, 0, 0, byte(2+i%peers)), a.addr)
				if err != nil {
					continue
				}
				// A small receive buffer: an answer it does not read soon
				// blocks the agent's writes.
				_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
				p.opened++
				ph.wg.Go(func() { at.attack(ph.ctx, conn) })
			}
			select {
			case <-ph.ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	// The well-behaved clients, each from its own address.
	try := func(ch *checks, from byte, check func(*http.Client) bool) {
		client := clientFrom(net.IPv4(127, 0, 0, from))
		ph.every(250*time.Millisecond, func() {
			ok := check(client)
			if ph.ctx.Err() != nil {
				// Cut by the phase's end, not by the agent.
				return
			}
			ch.tries.Add(1)
			if ok {
				ch.ok.Add(1)
			}
		})
	}
	try(&p.probes, 1, func(cl *http.Client) bool { return getOK(ph.ctx, cl, probeURL+v1alpha1.LivezPath, nil) })
	try(&p.sources, 250, func(cl *http.Client) bool {
		return getOK(ph.ctx, cl, a.base+v1alpha1.SourcesPath, nil)
	})
	try(&p.watch, 251, func(cl *http.Client) bool {
		return getOK(ph.ctx, cl, a.base+v1alpha1.EventsPath, func(body io.Reader) bool {
			line, err := bufio.NewReader(body).ReadString('\n')
			return err == nil && strings.Contains(line, `"heartbeat"`)
		})
	})
	var err error
	if p.rssMax, err = ph.peakRSS(a.pid); err != nil {
		return p, err
	}
	ph.end()
	return p, ctx.Err()
}

// getOK reports whether a GET of url answered 200 and, when read is not
// nil, read accepted its body; else the body is read to the end.
func getOK(ctx context.Context, cl *http.Client, url string, read func(io.Reader) bool) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := cl.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	if read != nil {
		return read(resp.Body)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err == nil
}

// settle waits, up to 10 s, until the agent answers `sources` again once an
// attack's connections are closed, so that one attack does not count
// against the next.
func settle(ctx context.Context, base string) error {
	cl := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for !getOK(ctx, cl, base+v1alpha1.SourcesPath, nil) {
		if time.Now().After(deadline) {
			return errors.New("the agent did not answer `sources` within 10 s of an attack's end")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
