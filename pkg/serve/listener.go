package serve

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// refusedWriteTimeout bounds the write of the 503 to a refused connection.
const refusedWriteTimeout = 100 * time.Millisecond

// NewPeerReserve is how many connections beyond the total limit are kept
// for peers that hold none, when no connection is idle.
const NewPeerReserve = 32

// ConnLimits are the places of a LimitListener.
type ConnLimits struct {
	// Total and PerPeer bound the connections open at once, in all and
	// from one address (one /64 for IPv6).
	Total, PerPeer int
	// Name is what the listener's 503 answers and metrics call its
	// connections: "connections" for the API's, "probe-connections".
	Name string
}

// LimitListener accepts connections up to a total and a per-peer limit.
// A connection beyond one of them takes the place of the connection that
// has been idle the longest (of the same peer, for the per-peer limit):
// one between requests, or one that has not sent a whole request's headers
// yet; an idle HTTP connection may be closed at any time, and its client
// opens another. Beyond the total with no connection idle, up to
// NewPeerReserve more are accepted from peers that hold none. Any other
// is answered 503 with Retry-After and closed at once, so that it holds
// neither a goroutine nor a buffer of the server's.
type LimitListener struct {
	net.Listener
	limits  ConnLimits
	refused *prometheus.CounterVec
	evicted prometheus.Counter

	mu    sync.Mutex
	peers map[netip.Prefix]int
	conns map[*limitedConn]struct{}
}

// NewLimitListener returns a listener that accepts the connections of l
// within lim. It counts the connections it refuses in refused
// (podsrc_refused_total) by limit, and the idle ones it closes to make room
// in evicted (podsrc_idle_connections_closed_total) under lim.Name.
func NewLimitListener(l net.Listener, lim ConnLimits, refused, evicted *prometheus.CounterVec) *LimitListener {
	return &LimitListener{
		Listener: l, limits: lim,
		refused: refused, evicted: evicted.WithLabelValues(lim.Name),
		peers: map[netip.Prefix]int{}, conns: map[*limitedConn]struct{}{},
	}
}

// Accept returns the next connection within the limits.
func (l *LimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc, victim, reason := l.admit(c)
		if victim != nil {
			l.evicted.Inc()
			_ = victim.Conn.Close()
		}
		if reason != "" {
			l.refused.WithLabelValues(reason).Inc()
			refuse(c, reason)
			continue
		}
		return lc, nil
	}
}

// admit counts a connection, or returns the limit it exceeds. victim, when
// not nil, is an idle connection whose place it took, to be closed.
func (l *LimitListener) admit(c net.Conn) (lc *limitedConn, victim *limitedConn, refused string) {
	peer := peerOf(c.RemoteAddr().String())
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.peers[peer] >= l.limits.PerPeer:
		if victim = l.longestIdle(peer); victim == nil {
			return nil, nil, l.limits.Name + perPeerLabel
		}
	case len(l.conns) >= l.limits.Total:
		victim = l.longestIdle(netip.Prefix{})
		if victim == nil && (len(l.conns) >= l.limits.Total+NewPeerReserve || l.peers[peer] > 0) {
			return nil, nil, l.limits.Name
		}
	}
	if victim != nil {
		l.releaseLocked(victim)
	}
	lc = &limitedConn{Conn: c, l: l, peer: peer, idleSince: time.Now()}
	l.conns[lc] = struct{}{}
	l.peers[peer]++
	return lc, victim, ""
}

// longestIdle returns the connection idle the longest, of peer unless peer
// is the zero Prefix; nil when none is idle.
func (l *LimitListener) longestIdle(peer netip.Prefix) *limitedConn {
	var oldest *limitedConn
	for c := range l.conns {
		if c.idleSince.IsZero() || (peer.IsValid() && c.peer != peer) {
			continue
		}
		if oldest == nil || c.idleSince.Before(oldest.idleSince) {
			oldest = c
		}
	}
	return oldest
}

// releaseLocked gives a connection's place back, once.
func (l *LimitListener) releaseLocked(c *limitedConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.peers[c.peer]--; l.peers[c.peer] <= 0 {
		delete(l.peers, c.peer)
	}
}

// ConnState follows the server's connections (http.Server.ConnState): a
// connection is idle from its start until it has read a request's headers,
// and again between requests.
func (l *LimitListener) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateNew, http.StateIdle:
		lc.idleSince = time.Now()
	case http.StateActive:
		lc.idleSince = time.Time{}
	}
}

// peerOf returns the address a connection counts against, from its remote
// address ("host:port"): the IPv4 address, or the /64 of an IPv6 one (a
// host holds a whole /64).
func peerOf(remote string) netip.Prefix {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap()
	if ip.Is4() {
		return netip.PrefixFrom(ip, 32)
	}
	p, _ := ip.Prefix(64)
	return p
}

// refuse answers a connection beyond a limit with a 503 Status and closes it.
func refuse(c net.Conn, limit string) {
	body := statusJSON(http.StatusServiceUnavailable, "the podsrc agent has too many connections open ("+limit+" limit); retry later")
	head := "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: " + strconv.Itoa(retryAfterSeconds) +
		"\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	_ = c.SetWriteDeadline(time.Now().Add(refusedWriteTimeout))
	_, _ = c.Write(append([]byte(head), body...))
	_ = c.Close()
}

// limitedConn is a connection a LimitListener counts; it gives its place
// back when closed.
type limitedConn struct {
	net.Conn
	l    *LimitListener
	peer netip.Prefix
	// idleSince is when the connection last became idle, zero while it
	// serves a request; the listener's mutex guards it.
	idleSince time.Time
}

// Close closes the connection and releases its place.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.releaseLocked(c)
	c.l.mu.Unlock()
	return err
}
