package agent

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// rawGet opens a connection from the local address from (a loopback
// address), sends a GET of path and reads nothing: a client that never
// reads. The connection is closed at the end of the test.
func rawGet(t *testing.T, ta *testAgent, from, path string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	c, err := d.Dial("tcp", strings.TrimPrefix(ta.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
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

// wantUnavailable checks a 503 with Retry-After and a Status that names
// the limit.
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

// TestConnectionsBeyondThePeerLimitAreRefused has clients that ask for the
// pods and never read: one peer gets no more connections than its limit
// (and so holds no more snapshots than that), the rest are answered 503,
// while another peer is still served; a place freed is taken again.
func TestConnectionsBeyondThePeerLimitAreRefused(t *testing.T) {
	const perPeer, extra = 20, 5
	ta := startAgent(t, func(c *Config) { c.Limits.MaxConnectionsPerPeer = perPeer })
	var held []net.Conn
	for range perPeer {
		held = append(held, rawGet(t, ta, "127.0.0.2", "/api/v1alpha1/pods"))
	}
	// Every admitted connection is answered (its answer waits unread).
	for _, c := range held {
		if resp := answer(t, c); resp.StatusCode != http.StatusOK {
			t.Fatalf("admitted connection answered %s", resp.Status)
		}
	}
	for range extra {
		wantUnavailable(t, answer(t, rawGet(t, ta, "127.0.0.2", "/api/v1alpha1/pods")), "connections-per-peer")
	}
	if code, _ := ta.get(t, "/livez"); code != http.StatusOK {
		t.Fatalf("another peer's /livez answered %d", code)
	}
	held[0].Close()
	ta.waitFor(t, "a freed place taken again", func() bool {
		return answer(t, rawGet(t, ta, "127.0.0.2", "/livez")).StatusCode == http.StatusOK
	})
}

// TestLimits checks each limit with real HTTP: the request beyond it is
// answered 503 with Retry-After as a JSON Status, and served again once a
// place is free.
func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		limits func(*Limits)
		// fill takes every place; it returns what frees one.
		fill  func(t *testing.T, ta *testAgent) (free func())
		path  string
		limit string
	}{
		{
			name:   "connections",
			limits: func(l *Limits) { l.MaxConnections, l.MaxConnectionsPerPeer, l.MaxStreams = 2, 2, 2 },
			fill: func(t *testing.T, ta *testAgent) func() {
				a, b := rawGet(t, ta, "127.0.0.1", "/healthz"), rawGet(t, ta, "127.0.0.1", "/healthz")
				answer(t, a)
				answer(t, b)
				// A peer that holds no connection still gets one of the
				// reserve beyond the total: the kubelet's probes.
				probe := rawGet(t, ta, "127.0.0.5", "/livez")
				if resp := answer(t, probe); resp.StatusCode != http.StatusOK {
					t.Fatalf("a new peer's probe answered %s with every place taken", resp.Status)
				}
				probe.Close()
				return func() { a.Close() }
			},
			path: "/livez", limit: "connections limit",
		},
		{
			name:   "event streams",
			limits: func(l *Limits) { l.MaxStreams = 2 },
			fill: func(t *testing.T, ta *testAgent) func() {
				s1, s2 := ta.stream(t, ""), ta.stream(t, "")
				s1.next(t)
				s2.next(t)
				return func() { s1.resp.Body.Close() }
			},
			path: "/api/v1alpha1/events", limit: limitStreams,
		},
		{
			name:   "snapshot requests",
			limits: func(l *Limits) { l.MaxSnapshots = 1 },
			fill:   takeSnapshotSlot,
			path:   "/api/v1alpha1/pods", limit: limitSnapshots,
		},
		{
			name:   "a stream's snapshot",
			limits: func(l *Limits) { l.MaxSnapshots = 1 },
			fill:   takeSnapshotSlot,
			path:   "/api/v1alpha1/events?snapshot=true", limit: limitSnapshots,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := startAgent(t, func(c *Config) { tt.limits(&c.Limits) })
			free := tt.fill(t, ta)
			wantUnavailable(t, answer(t, rawGet(t, ta, "127.0.0.1", tt.path)), tt.limit)
			free()
			ta.waitFor(t, "served again", func() bool {
				// The body is left unread: a stream's never ends; the
				// connection closes when the test ends.
				return answer(t, rawGet(t, ta, "127.0.0.1", tt.path)).StatusCode == http.StatusOK
			})
		})
	}
}

// takeSnapshotSlot takes the only snapshot slot, as a request in progress
// holds it while it writes, for as long as the test likes.
func takeSnapshotSlot(t *testing.T, ta *testAgent) func() {
	if !ta.snapshots.take() {
		t.Fatal("no snapshot slot free")
	}
	return ta.snapshots.give
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
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			cmd := NewCommand(Kubelet{Decoder: yamlDecoder{}})
			cmd.SetArgs(append([]string{"--node-name=n", "--api-source=false", "--runtime-endpoint="}, tt.args...))
			cmd.SetOut(&strings.Builder{})
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("got %v, want an error naming %s", err, tt.flag)
			}
		})
	}
}
