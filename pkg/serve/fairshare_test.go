package serve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// sourcesPath is the path of the sources snapshot.
const sourcesPath = v1alpha1.SourcesPath

// The tests of this file are the attacks of a pod on the node's network:
// each comes from other loopback addresses (all of 127.0.0.0/8 is
// loopback) than the well-behaved client's.

// manyPods returns a State with n API pods, each with 1.5 KiB of labels:
// a pod list (8 MiB for 5,000) far larger than what the kernel buffers of
// a connection hold.
func manyPods(n int) func(*eventring.Ring) State {
	pods := make([]v1alpha1.PodInfo, 0, n)
	pad := strings.Repeat("x", 250)
	for i := range n {
		labels := map[string]string{}
		for j := range 6 {
			labels[fmt.Sprintf("label-%d", j)] = pad
		}
		pods = append(pods, v1alpha1.PodInfo{
			Name: fmt.Sprintf("pod-%d", i), Namespace: "default", UID: types.UID(fmt.Sprintf("uid-%d", i)),
			Labels: labels, Source: v1alpha1.SourceAPI,
		})
	}
	return func(ring *eventring.Ring) State { return podsState{ring: ring, pods: pods} }
}

// slowReadBuffer is the receive buffer of a slow reader: the API's
// writes of a large answer it never reads soon block.
const slowReadBuffer = 4 << 10

// getFrom GETs path from the address from on a connection of its own and
// returns the status code and the whole body.
func getFrom(t *testing.T, base, from, path string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: waitLimit, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext:       (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext,
	}}
	resp, err := client.Get(base + path)
	if err != nil {
		t.Fatalf("GET %s from %s: %v", path, from, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s from %s: reading: %v", path, from, err)
	}
	return resp.StatusCode, string(body)
}

// TestSlowReadersFromOneAddressLeaveSnapshotsToOthers has eight clients
// from one address ask for a large pod list and never read it: they hold
// the peer's share of the snapshot slots (the rest are answered 503), and
// another peer's snapshots are still answered, in full.
func TestSlowReadersFromOneAddressLeaveSnapshotsToOthers(t *testing.T) {
	ts := startServer(t, func(c *serverConfig) { c.State = manyPods(5000) })
	var readers []net.Conn
	for range 8 {
		readers = append(readers, rawGetBuffered(t, ts, "127.0.0.2", v1alpha1.PodsPath, slowReadBuffer))
	}
	// Every answer has begun: the slow readers hold what they got.
	var answers []*http.Response
	for _, c := range readers {
		answers = append(answers, answer(t, c))
	}
	// A pod list of one namespace takes a snapshot slot as the whole
	// list does, and is quick to read on a loaded machine.
	oneNamespace := v1alpha1.PodsPath + "?" + v1alpha1.PodQuery{Namespaces: []string{"kube-system"}}.Encode().Encode()
	for _, path := range []string{sourcesPath, oneNamespace} {
		if code, body := getFrom(t, ts.url, "127.0.0.3", path); code != http.StatusOK {
			t.Fatalf("another peer's %s answered %d while the slow readers held theirs: %.200s", path, code, body)
		}
	}
	refused := 0
	for _, resp := range answers {
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			wantUnavailable(t, resp, snapshotsWords+perPeerWords)
			refused++
		default:
			t.Fatalf("a slow reader was answered %s", resp.Status)
		}
	}
	if want := 8 - DefaultMaxSnapshotsPerPeer; refused != want {
		t.Fatalf("%d of 8 slow readers from one address refused, want %d (all but the peer's share)", refused, want)
	}
}

// TestASlowReaderIsCutOff has a client ask for a large pod list and never
// read it: the API cuts it off once its writes stall for
// SnapshotChunkTimeout, well before the answer's WriteTimeout,
// and its snapshot slot is free again.
func TestASlowReaderIsCutOff(t *testing.T) {
	ts := startServer(t, func(c *serverConfig) {
		c.Limits.MaxSnapshots, c.Limits.MaxSnapshotsPerPeer = 1, 1
		c.State = manyPods(5000)
	})
	start := time.Now()
	c := rawGetBuffered(t, ts, "127.0.0.2", v1alpha1.PodsPath, slowReadBuffer)
	if resp := answer(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("the slow reader was answered %s", resp.Status)
	}
	// Well within WriteTimeout, with room for a loaded machine.
	limit := WriteTimeout / 2
	for {
		code, _ := getFrom(t, ts.url, "127.0.0.3", sourcesPath)
		if code == http.StatusOK {
			break
		}
		if time.Since(start) > limit {
			t.Fatalf("the slow reader still held the only snapshot slot after %v (SnapshotChunkTimeout %v)", limit, SnapshotChunkTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("slot free again %v after the slow reader's request", time.Since(start).Round(time.Millisecond))
}

// TestStreamsFromOneAddressLeaveStreamsToOthers opens as many streams from
// one address as the API allows in all: the peer gets its share, the
// rest are answered 503, and another peer's stream is served.
func TestStreamsFromOneAddressLeaveStreamsToOthers(t *testing.T) {
	ts := startServer(t, nil)
	open := 0
	for range DefaultMaxStreams {
		resp := answer(t, rawGet(t, ts, "127.0.0.2", v1alpha1.EventsPath))
		switch resp.StatusCode {
		case http.StatusOK:
			open++
		case http.StatusServiceUnavailable:
			wantUnavailable(t, resp, streamsWords+perPeerWords)
		default:
			t.Fatalf("a stream was answered %s", resp.Status)
		}
	}
	if open != DefaultMaxStreamsPerPeer {
		t.Fatalf("%d of %d streams from one address open, want the peer's share, %d", open, DefaultMaxStreams, DefaultMaxStreamsPerPeer)
	}
	resp := answer(t, rawGet(t, ts, "127.0.0.3", v1alpha1.EventsPath))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another peer's stream answered %s", resp.Status)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"heartbeat"`) {
		t.Fatalf("another peer's stream: %q %v, want its opening heartbeat", line, err)
	}
}

// TestIdleConnectionsMakeRoom fills the API's listener and its reserve
// with idle keep-alive connections (each asked for /version, read the
// answer and stays open), from one address and from many: a new peer is
// still served, since the connection idle the longest makes room for it,
// the attacking peer too, and the kubelet's probe on the probes' listener
// from the node's address never saw them.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	const idle = DefaultMaxConnections + NewPeerReserve
	tests := []struct {
		name string
		// from is the address of connection i.
		from func(i int) string
	}{
		{name: "one address", from: func(int) string { return "127.0.1.1" }},
		{name: "many addresses", from: func(i int) string {
			// 16 peers of 32 up to the total, then the reserve, which
			// takes one connection from each peer that holds none.
			if i < DefaultMaxConnections {
				return fmt.Sprintf("127.0.1.%d", 1+i/32)
			}
			return fmt.Sprintf("127.0.2.%d", 1+i-DefaultMaxConnections)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, nil)
			for i := range idle {
				from := tt.from(i)
				c := rawGet(t, ts, from, "/version")
				resp := answer(t, c)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			for _, check := range []struct{ who, base, from, path string }{
				{"a new peer's /livez", ts.url, "127.0.0.3", "/livez"},
				{"a new peer's sources", ts.url, "127.0.0.3", sourcesPath},
				{"the attacking peer's /version", ts.url, "127.0.1.1", "/version"},
				{"the kubelet's /livez on the probe port", ts.probeURL, "127.0.0.1", "/livez"},
				{"the kubelet's /readyz on the probe port", ts.probeURL, "127.0.0.1", "/readyz"},
			} {
				if code, body := getFrom(t, check.base, check.from, check.path); code != http.StatusOK {
					t.Errorf("%s answered %d: %.200s", check.who, code, body)
				}
			}
		})
	}
}

// TestProbeListenerServesOnlyProbes checks that the probes' listener
// answers the probes and nothing of the API.
func TestProbeListenerServesOnlyProbes(t *testing.T) {
	ts := startServer(t, nil)
	tests := []struct {
		path string
		want int
	}{
		{"/healthz", http.StatusOK},
		{"/livez", http.StatusOK},
		{"/readyz", http.StatusOK},
		{sourcesPath, http.StatusNotFound},
		{v1alpha1.PodsPath, http.StatusNotFound},
		{v1alpha1.EventsPath, http.StatusNotFound},
		{"/metrics", http.StatusNotFound},
	}
	for _, tt := range tests {
		if code, body := getFrom(t, ts.probeURL, "127.0.0.1", tt.path); code != tt.want {
			t.Errorf("probe port %s answered %d (%.100s), want %d", tt.path, code, body, tt.want)
		}
	}
}
