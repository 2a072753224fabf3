package agent

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

// newPeerReserve is how many connections beyond the total limit are kept
// for peers that hold none: the kubelet's probes (a new connection from the
// node's address each time) still get through when other peers have taken
// every place.
const newPeerReserve = 32

// limitListener accepts connections up to a total and a per-peer limit
// (beyond the total, up to newPeerReserve more from peers that hold none);
// one beyond them is answered 503 with Retry-After and closed at once, so
// that it holds neither a goroutine nor a buffer of the server's.
type limitListener struct {
	net.Listener
	total, perPeer int
	refused        *prometheus.CounterVec

	mu    sync.Mutex
	open  int
	peers map[netip.Prefix]int
}

func newLimitListener(l net.Listener, lim Limits, refused *prometheus.CounterVec) *limitListener {
	return &limitListener{Listener: l, total: lim.MaxConnections, perPeer: lim.MaxConnectionsPerPeer, refused: refused, peers: map[netip.Prefix]int{}}
}

// Accept returns the next connection within the limits.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		peer := peerOf(c.RemoteAddr())
		if reason := l.admit(peer); reason != "" {
			l.refused.WithLabelValues(reason).Inc()
			refuse(c, reason)
			continue
		}
		return &limitedConn{Conn: c, release: func() { l.release(peer) }}, nil
	}
}

// admit counts a connection from peer, or returns the limit it exceeds.
func (l *limitListener) admit(peer netip.Prefix) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open >= l.total+newPeerReserve, l.open >= l.total && l.peers[peer] > 0:
		return "connections"
	case l.peers[peer] >= l.perPeer:
		return "connections-per-peer"
	}
	l.open++
	l.peers[peer]++
	return ""
}

func (l *limitListener) release(peer netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.peers[peer]--; l.peers[peer] <= 0 {
		delete(l.peers, peer)
	}
}

// peerOf returns the address a connection counts against: the IPv4
// address, or the /64 of an IPv6 one (a host holds a whole /64).
func peerOf(a net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(a.String())
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

// limitedConn gives its place back once when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and releases its place.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
