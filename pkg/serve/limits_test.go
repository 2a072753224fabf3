package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// The limits' words in their 503 answers, as a client reads them.
const (
	streamsWords   = "event streams"
	snapshotsWords = "snapshot requests"
	perPeerWords   = " from one address"
)

// rawGet opens a connection from the local address from (a loopback
// address), sends a GET of path and reads nothing: a client that never
// reads. The connection is closed at the end of the test.
func rawGet(t *testing.T, ts *testServer, from, path string) net.Conn {
	t.Helper()
	return rawGetBuffered(t, ts, from, path, 0)
}

// rawGetBuffered is rawGet with a receive buffer of readBuffer bytes (the
// system's when 0).
func rawGetBuffered(t *testing.T, ts *testServer, from, path string, readBuffer int) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	c, err := d.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if readBuffer != 0 {
		if err := c.(*net.TCPConn).SetReadBuffer(readBuffer); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: agent\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return c
}

// answer reads the response on a connection.
func answer(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(waitLimit))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp
}

// wantUnavailable checks a 503 with Retry-After and a Status whose message
// holds limit.
func wantUnavailable(t *testing.T, resp *http.Response, limit string) {
	t.Helper()
	defer resp.Body.Close()
	var st v1alpha1.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("503 body: %v", err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		st.Kind != v1alpha1.KindStatus || st.Code != http.StatusServiceUnavailable || !strings.Contains(st.Message, limit) {
		t.Fatalf("got %s Retry-After %q %+v, want 503 with Retry-After naming %q", resp.Status, resp.Header.Get("Retry-After"), st, limit)
	}
}

// TestLimits checks each limit, in total and per peer, with real HTTP:
// the request beyond it is answered 503 with Retry-After as a JSON Status
// naming the limit, another peer is still served when the limit is the
// peer's, and the request is served again once a place is free.
func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits func(*Limits)
		// fill takes every place from is; it returns what frees one.
		fill func(t *testing.T, ts *testServer) (free func())
		path string
		// want is in the 503's message; other, when set, is a peer still
		// served meanwhile (after the 503: its connection may be idle,
		// and an idle connection makes room).
		want, other string
		// label is the limit's in podsrc_refused_total, as its flag names
		// it.
		label string
	}{
		{
			name: "connections",
			limits: func(l *Limits) {
				l.MaxConnections, l.MaxConnectionsPerPeer, l.MaxStreams, l.MaxStreamsPerPeer = 2, 2, 2, 2
			},
			fill: func(t *testing.T, ts *testServer) func() {
				// Streams, which are never idle: an idle connection
				// would make room.
				a, b := openStream(t, ts, "127.0.0.1"), openStream(t, ts, "127.0.0.3")
				return func() { a.Close(); b.Close() }
			},
			// A peer that holds no connection still gets one of the
			// reserve beyond the total.
			path: "/livez", want: "(connections limit)", label: "connections", other: "127.0.0.5",
		},
		{
			name:   "connections per peer",
			limits: func(l *Limits) { l.MaxConnectionsPerPeer = 2 },
			fill: func(t *testing.T, ts *testServer) func() {
				a := openStream(t, ts, "127.0.0.1")
				openStream(t, ts, "127.0.0.1")
				return func() { a.Close() }
			},
			path: "/livez", want: "(connections-per-peer limit)", label: "connections-per-peer", other: "127.0.0.3",
		},
		{
			name:   "event streams",
			limits: func(l *Limits) { l.MaxStreams, l.MaxStreamsPerPeer = 2, 1 },
			fill: func(t *testing.T, ts *testServer) func() {
				a := openStream(t, ts, "127.0.0.3")
				openStream(t, ts, "127.0.0.4")
				return func() { a.Close() }
			},
			path: "/api/v1alpha1/events", want: "many " + streamsWords + " as", label: "streams",
		},
		{
			name:   "event streams per peer",
			limits: func(l *Limits) { l.MaxStreamsPerPeer = 2 },
			fill: func(t *testing.T, ts *testServer) func() {
				a := openStream(t, ts, "127.0.0.1")
				openStream(t, ts, "127.0.0.1")
				return func() { a.Close() }
			},
			path: "/api/v1alpha1/events", want: "many " + streamsWords + perPeerWords + " as", label: "streams-per-peer", other: "127.0.0.3",
		},
		{
			name:   "snapshot requests",
			limits: func(l *Limits) { l.MaxSnapshots, l.MaxSnapshotsPerPeer = 1, 1 },
			fill:   func(t *testing.T, ts *testServer) func() { return takeSnapshotSlot(t, ts, "127.0.0.3") },
			path:   "/api/v1alpha1/pods", want: "many " + snapshotsWords + " as", label: "snapshot-requests",
		},
		{
			name:   "snapshot requests per peer",
			limits: func(l *Limits) { l.MaxSnapshotsPerPeer = 1 },
			fill:   func(t *testing.T, ts *testServer) func() { return takeSnapshotSlot(t, ts, "127.0.0.1") },
			path:   "/api/v1alpha1/pods", want: "many " + snapshotsWords + perPeerWords + " as", label: "snapshot-requests-per-peer", other: "127.0.0.3",
		},
		{
			name:   "a stream's snapshot",
			limits: func(l *Limits) { l.MaxSnapshots, l.MaxSnapshotsPerPeer = 1, 1 },
			fill:   func(t *testing.T, ts *testServer) func() { return takeSnapshotSlot(t, ts, "127.0.0.3") },
			path:   "/api/v1alpha1/events?snapshot=true", want: "many " + snapshotsWords + " as", label: "snapshot-requests",
		},
		{
			name:   "a stream's snapshot per peer",
			limits: func(l *Limits) { l.MaxSnapshotsPerPeer = 1 },
			fill:   func(t *testing.T, ts *testServer) func() { return takeSnapshotSlot(t, ts, "127.0.0.1") },
			path:   "/api/v1alpha1/events?snapshot=true", want: "many " + snapshotsWords + perPeerWords + " as", label: "snapshot-requests-per-peer", other: "127.0.0.3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, func(c *serverConfig) { tt.limits(&c.Limits) })
			free := tt.fill(t, ts)
			wantUnavailable(t, answer(t, rawGet(t, ts, "127.0.0.1", tt.path)), tt.want)
			if n := ts.api.Metrics.refusedValue(tt.label); n < 1 {
				t.Errorf("podsrc_refused_total{limit=%q} is %v, want the 503 counted", tt.label, n)
			}
			if tt.other != "" {
				if resp := answer(t, rawGet(t, ts, tt.other, tt.path)); resp.StatusCode != http.StatusOK {
					t.Fatalf("another peer answered %s while the first held its share", resp.Status)
				}
			}
			free()
			waitFor(t, "served again", func() bool {
				// The body is left unread: a stream's never ends; the
				// connection closes when the test ends.
				return answer(t, rawGet(t, ts, "127.0.0.1", tt.path)).StatusCode == http.StatusOK
			})
		})
	}
}

// openStream opens an event stream from the loopback address from and
// reads its answer's head; the stream stays open, unread, until closed.
func openStream(t *testing.T, ts *testServer, from string) net.Conn {
	t.Helper()
	c := rawGet(t, ts, from, "/api/v1alpha1/events")
	if resp := answer(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("a stream from %s answered %s", from, resp.Status)
	}
	return c
}

// takeSnapshotSlot takes a snapshot slot for the peer at the address from,
// as a request in progress holds it while it writes, for as long as the
// test likes.
func takeSnapshotSlot(t *testing.T, ts *testServer, from string) func() {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, v1alpha1.PodsPath, nil)
	req.RemoteAddr = net.JoinHostPort(from, "1")
	refusal := httptest.NewRecorder()
	give, ok := ts.api.Snapshots.Take(refusal, req)
	if !ok {
		t.Fatalf("no snapshot slot free: %s", refusal.Body)
	}
	return give
}
