//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/podsrc/podsrc/test/bench/internal/procstat"
)

// attackPhase is one phase of a benchmark against the agent: it lasts a
// while, holds the connections its clients open and runs their goroutines,
// all ended and closed by end.
type attackPhase struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
	ended sync.Once
}

func newAttackPhase(ctx context.Context, d time.Duration) *attackPhase {
	p := &attackPhase{}
	p.ctx, p.stop = context.WithTimeout(ctx, d)
	return p
}

// dial opens a connection to addr from the loopback address from; the
// phase closes it at its end.
func (p *attackPhase) dial(from net.IP, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: 5 * time.Second}
	conn, err := d.DialContext(p.ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.conns = append(p.conns, conn)
	p.mu.Unlock()
	return conn, nil
}

// end stops the phase's goroutines and closes its connections, once.
func (p *attackPhase) end() {
	p.ended.Do(func() {
		p.stop()
		p.wg.Wait()
		for _, conn := range p.conns {
			conn.Close()
		}
	})
}

// peakRSS samples pid's RSS until the phase's time is up and returns the
// highest.
func (p *attackPhase) peakRSS(pid int) (int64, error) {
	var peak int64
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for p.ctx.Err() == nil {
		m, err := procstat.ReadMem(pid)
		if err != nil {
			return peak, fmt.Errorf("the agent is gone: %w", err)
		}
		peak = max(peak, m.RSS)
		select {
		case <-p.ctx.Done():
		case <-tick.C:
		}
	}
	return peak, nil
}

// every runs f every period until the phase ends, in a goroutine of the
// phase.
func (p *attackPhase) every(period time.Duration, f func()) {
	p.wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-p.ctx.Done():
				return
			case <-t.C:
			}
			f()
		}
	})
}

// clientFrom is an HTTP client that opens a new connection from the
// loopback address from for each request, as the kubelet's prober does.
func clientFrom(from net.IP) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext:       (&net.Dialer{LocalAddr: &net.TCPAddr{IP: from}}).DialContext,
	}}
}
