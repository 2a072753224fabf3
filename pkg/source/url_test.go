package source

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// bodyServer serves a status and body that the test can change, and
// records the headers of the requests.
type bodyServer struct {
	mu      sync.Mutex
	status  int
	body    string
	headers []http.Header
}

func (b *bodyServer) set(status int, body string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status, b.body = status, body
}

func (b *bodyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	status, body := b.status, b.body
	b.headers = append(b.headers, r.Header.Clone())
	b.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

func startURL(t *testing.T, url string, opts URLOptions) (*URLSource, *sourcetest.Collector) {
	t.Helper()
	c := sourcetest.NewCollector(t)
	opts.URL = url
	opts.NodeName = testNode
	opts.Decoder = fakeDecoder{}
	opts.Updates = c.Updates
	if opts.Period == 0 {
		opts.Period = time.Hour
	}
	src, err := NewURL(opts)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	return src, c
}

func TestURLSourceFirstFetch(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		wantSent  bool
		wantPods  []string
		wantError string
	}{
		{name: "single pod", status: 200, body: "pod web", wantSent: true, wantPods: []string{"web-node-1"}},
		{name: "pod list", status: 200, body: "pod a\npod b", wantSent: true, wantPods: []string{"a-node-1", "b-node-1"}},
		{name: "non-200", status: 503, body: "pod web", wantError: "503 Service Unavailable"},
		{name: "not found", status: 404, body: "", wantError: "404 Not Found"},
		{name: "empty body", status: 200, body: "", wantSent: true, wantPods: []string{}, wantError: "zero-length data received"},
		{name: "garbage", status: 200, body: "<html>not a pod</html>", wantError: "couldn't parse"},
		{name: "list with one invalid pod", status: 200, body: "pod a\nbroken", wantError: "couldn't parse"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &bodyServer{status: tc.status, body: tc.body}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			src, c := startURL(t, hs.URL+"/pods", URLOptions{})
			if tc.wantSent {
				c.Until(tc.wantPods...)
			}
			sourcetest.Eventually(t, "fetched", func() bool { return src.Status().Checks >= 1 })
			c.None()
			st := src.Status()
			if st.Seen != tc.wantSent {
				t.Errorf("seen = %v, want %v", st.Seen, tc.wantSent)
			}
			if tc.wantError == "" && st.LastError != "" {
				t.Errorf("unexpected error %q", st.LastError)
			}
			if !strings.Contains(st.LastError, tc.wantError) {
				t.Errorf("last error %q does not contain %q", st.LastError, tc.wantError)
			}
			if tc.wantError != "" && !strings.Contains(st.LastError, hs.URL) {
				t.Errorf("last error %q does not name the URL", st.LastError)
			}
			if st.Source != v1alpha1.SourceHTTP || st.Target != hs.URL+"/pods" {
				t.Errorf("source %q target %q", st.Source, st.Target)
			}
		})
	}
}

func TestURLSourceHeaders(t *testing.T) {
	srv := &bodyServer{status: 200, body: "pod web"}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	header := http.Header{"Authorization": {"Bearer token"}, "X-Node": {"a", "b"}}
	_, c := startURL(t, hs.URL, URLOptions{Header: header})
	c.Until("web-node-1")
	srv.mu.Lock()
	defer srv.mu.Unlock()
	got := srv.headers[0]
	if got.Get("Authorization") != "Bearer token" || strings.Join(got.Values("X-Node"), ",") != "a,b" {
		t.Errorf("headers sent: %v", got)
	}
}

func TestURLSourceChanges(t *testing.T) {
	srv := &bodyServer{status: 200, body: "pod web v1"}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	src, c := startURL(t, hs.URL, URLOptions{Period: 10 * time.Millisecond})
	c.Until("web-node-1")

	// Identical bytes: nothing is sent, however many fetches.
	checks := src.Status().Checks
	sourcetest.Eventually(t, "refetched", func() bool { return src.Status().Checks >= checks+3 })
	c.None()

	// A non-200 answer sends nothing; the next good body is sent.
	srv.set(500, "oops")
	checks = src.Status().Checks
	sourcetest.Eventually(t, "failed fetch", func() bool { return src.Status().Checks > checks+1 })
	c.None()
	srv.set(200, "pod web v2\npod other")
	c.Until("other-node-1", "web-node-1")

	// An empty body empties the source; the kubelet still remembers the
	// last body, so the same body coming back sends nothing.
	srv.set(200, "")
	c.Until()
	checks = src.Status().Checks
	srv.set(200, "pod web v2\npod other")
	sourcetest.Eventually(t, "refetched", func() bool { return src.Status().Checks >= checks+3 })
	c.None()
	srv.set(200, "pod web v3")
	c.Until("web-node-1")
}

func TestURLSourceTimeout(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hs.Close()
	defer close(release)
	src, c := startURL(t, hs.URL, URLOptions{Timeout: 50 * time.Millisecond})
	sourcetest.Eventually(t, "fetch timed out", func() bool { return src.Status().Checks >= 1 })
	c.None()
	st := src.Status()
	if st.Seen || !strings.Contains(st.LastError, "Timeout") || !strings.Contains(st.LastError, hs.URL) {
		t.Errorf("status after timeout: seen %v, error %q", st.Seen, st.LastError)
	}
}
