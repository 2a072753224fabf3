package agent

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
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/serve"
)

// The limits' words in their 503 answers, as serve's slots say them.
const (
	limitStreams   = "event streams"
	limitSnapshots = "snapshot requests"
	perPeerSuffix  = " from one address"
)

// rawGet opens a connection from the local address from (a loopback
// address), sends a GET of path and reads nothing: a client that never
// reads. The connection is closed at the end of the test.
func rawGet(t *testing.T, ta *testAgent, from, path string) net.Conn {
	t.Helper()
	return rawGetBuffered(t, ta, from, path, 0)
}

// rawGetBuffered is rawGet with a receive buffer of readBuffer bytes (the
// system's when 0).
func rawGetBuffered(t *testing.T, ta *testAgent, from, path string, readBuffer int) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	c, err := d.Dial("tcp", strings.TrimPrefix(ta.url, "http://"))
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
		limits func(*serve.Limits)
		// fill takes every place from is; it returns what frees one.
		fill func(t *testing.T, ta *testAgent) (free func())
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
			limits: func(l *serve.Limits) {
				l.MaxConnections, l.MaxConnectionsPerPeer, l.MaxStreams, l.MaxStreamsPerPeer = 2, 2, 2, 2
			},
			fill: func(t *testing.T, ta *testAgent) func() {
				// Streams, which are never idle: an idle connection
				// would make room.
				a, b := openStream(t, ta, "127.0.0.1"), openStream(t, ta, "127.0.0.3")
				return func() { a.Close(); b.Close() }
			},
			// A peer that holds no connection still gets one of the
			// reserve beyond the total.
			path: "/livez", want: "(connections limit)", label: "connections", other: "127.0.0.5",
		},
		{
			name:   "connections per peer",
			limits: func(l *serve.Limits) { l.MaxConnectionsPerPeer = 2 },
			fill: func(t *testing.T, ta *testAgent) func() {
				a := openStream(t, ta, "127.0.0.1")
				openStream(t, ta, "127.0.0.1")
				return func() { a.Close() }
			},
			path: "/livez", want: "(connections-per-peer limit)", label: "connections-per-peer", other: "127.0.0.3",
		},
		{
			name:   "event streams",
			limits: func(l *serve.Limits) { l.MaxStreams, l.MaxStreamsPerPeer = 2, 1 },
			fill: func(t *testing.T, ta *testAgent) func() {
				a := openStream(t, ta, "127.0.0.3")
				openStream(t, ta, "127.0.0.4")
				return func() { a.Close() }
			},
			path: "/api/v1alpha1/events", want: "many " + limitStreams + " as", label: "streams",
		},
		{
			name:   "event streams per peer",
			limits: func(l *serve.Limits) { l.MaxStreamsPerPeer = 2 },
			fill: func(t *testing.T, ta *testAgent) func() {
				a := openStream(t, ta, "127.0.0.1")
				openStream(t, ta, "127.0.0.1")
				return func() { a.Close() }
			},
			path: "/api/v1alpha1/events", want: "many " + limitStreams + perPeerSuffix + " as", label: "streams-per-peer", other: "127.0.0.3",
		},
		{
			name:   "snapshot requests",
			limits: func(l *serve.Limits) { l.MaxSnapshots, l.MaxSnapshotsPerPeer = 1, 1 },
			fill:   func(t *testing.T, ta *testAgent) func() { return takeSnapshotSlot(t, ta, "127.0.0.3") },
			path:   "/api/v1alpha1/pods", want: "many " + limitSnapshots + " as", label: "snapshot-requests",
		},
		{
			name:   "snapshot requests per peer",
			limits: func(l *serve.Limits) { l.MaxSnapshotsPerPeer = 1 },
			fill:   func(t *testing.T, ta *testAgent) func() { return takeSnapshotSlot(t, ta, "127.0.0.1") },
			path:   "/api/v1alpha1/pods", want: "many " + limitSnapshots + perPeerSuffix + " as", label: "snapshot-requests-per-peer", other: "127.0.0.3",
		},
		{
			name:   "a stream's snapshot",
			limits: func(l *serve.Limits) { l.MaxSnapshots, l.MaxSnapshotsPerPeer = 1, 1 },
			fill:   func(t *testing.T, ta *testAgent) func() { return takeSnapshotSlot(t, ta, "127.0.0.3") },
			path:   "/api/v1alpha1/events?snapshot=true", want: "many " + limitSnapshots + " as", label: "snapshot-requests",
		},
		{
			name:   "a stream's snapshot per peer",
			limits: func(l *serve.Limits) { l.MaxSnapshotsPerPeer = 1 },
			fill:   func(t *testing.T, ta *testAgent) func() { return takeSnapshotSlot(t, ta, "127.0.0.1") },
			path:   "/api/v1alpha1/events?snapshot=true", want: "many " + limitSnapshots + perPeerSuffix + " as", label: "snapshot-requests-per-peer", other: "127.0.0.3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := startAgent(t, func(c *Config) { tt.limits(&c.Limits) })
			free := tt.fill(t, ta)
			wantUnavailable(t, answer(t, rawGet(t, ta, "127.0.0.1", tt.path)), tt.want)
			if n := ta.metrics.refusedValue(tt.label); n < 1 {
				t.Errorf("podsrc_refused_total{limit=%q} is %v, want the 503 counted", tt.label, n)
			}
			if tt.other != "" {
				if resp := answer(t, rawGet(t, ta, tt.other, tt.path)); resp.StatusCode != http.StatusOK {
					t.Fatalf("another peer answered %s while the first held its share", resp.Status)
				}
			}
			free()
			ta.waitFor(t, "served again", func() bool {
				// The body is left unread: a stream's never ends; the
				// connection closes when the test ends.
				return answer(t, rawGet(t, ta, "127.0.0.1", tt.path)).StatusCode == http.StatusOK
			})
		})
	}
}

// openStream opens an event stream from the loopback address from and
// reads its answer's head; the stream stays open, unread, until closed.
func openStream(t *testing.T, ta *testAgent, from string) net.Conn {
	t.Helper()
	c := rawGet(t, ta, from, "/api/v1alpha1/events")
	if resp := answer(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("a stream from %s answered %s", from, resp.Status)
	}
	return c
}

// takeSnapshotSlot takes a snapshot slot for the peer at the address from,
// as a request in progress holds it while it writes, for as long as the
// test likes.
func takeSnapshotSlot(t *testing.T, ta *testAgent, from string) func() {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, v1alpha1.PodsPath, nil)
	req.RemoteAddr = net.JoinHostPort(from, "1")
	refusal := httptest.NewRecorder()
	give, ok := ta.api.Snapshots.Take(refusal, req)
	if !ok {
		t.Fatalf("no snapshot slot free: %s", refusal.Body)
	}
	return give
}

func TestLimitsRefuseBadValues(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{args: []string{"--max-connections=0"}, flag: "--max-connections"},
		{args: []string{"--max-connections=10", "--max-connections-per-peer=11"}, flag: "--max-connections-per-peer"},
		{args: []string{"--max-streams=-1"}, flag: "--max-streams"},
		{args: []string{"--max-snapshot-requests=0"}, flag: "--max-snapshot-requests"},
		{args: []string{"--max-streams=4", "--max-streams-per-peer=5"}, flag: "--max-streams-per-peer"},
		{args: []string{"--max-snapshot-requests-per-peer=0"}, flag: "--max-snapshot-requests-per-peer"},
		{args: []string{"--probe-address=10272"}, flag: "--probe-address"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			cmd := NewCommand(kubeletminor.V136, yamlDecoder{}, noAdmission)
			cmd.SetArgs(append([]string{"--node-name=n", "--api-source=false", "--runtime-endpoint="}, tt.args...))
			cmd.SetOut(&strings.Builder{})
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("got %v, want an error naming %s", err, tt.flag)
			}
		})
	}
}
