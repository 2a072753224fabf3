package source

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/podsrc/podsrc/internal/sourcetest"
)

// TestURLSourceMasksCredentials fetches a static pod URL with user info,
// a query token and a header, fails in every way a fetch can, and checks
// that neither the status nor the log shows any of them, while the
// server still gets them all.
func TestURLSourceMasksCredentials(t *testing.T) {
	const user, password, token, header, bodySecret = "user-c0ffee", "pw-c0ffee", "token-c0ffee", "header-c0ffee", "body-c0ffee"
	secrets := []string{user, password, token, header, bodySecret}
	cases := []struct {
		name   string
		status int
		body   string
		closed bool
	}{
		{name: "non-200", status: 503, body: "pod web"},
		{name: "empty body", status: 200, body: ""},
		{name: "body that does not decode", status: 200, body: "env DB_PASSWORD=" + bodySecret},
		{name: "nothing listens", closed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &bodyServer{status: tc.status, body: tc.body}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			raw := strings.Replace(hs.URL, "http://", "http://"+user+":"+password+"@", 1) + "/pods?token=" + token
			if tc.closed {
				hs.Close()
			}
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
			c := sourcetest.NewCollector(t)
			src, err := NewURL(URLOptions{
				URL: raw, Header: http.Header{"Authorization": {"Bearer " + header}}, NodeName: testNode,
				Decoder: fakeDecoder{}, Updates: c.Updates, Period: time.Hour,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
			done := make(chan struct{})
			go func() { defer close(done); src.Run(ctx) }()
			go func() {
				for {
					select {
					case <-c.Updates:
					case <-done:
						return
					}
				}
			}()
			sourcetest.Eventually(t, "a failed fetch", func() bool { return src.Status().LastError != "" })
			cancel()
			<-done

			st := src.Status()
			logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
			for _, s := range secrets {
				for what, text := range map[string]string{"target": st.Target, "last error": st.LastError, "log": logs} {
					if strings.Contains(text, s) {
						t.Errorf("the %s shows %q: %s", what, s, text)
					}
				}
			}
			if !strings.Contains(st.Target, "token=xxxxx") || !strings.Contains(st.LastError, "xxxxx@127.0.0.1") {
				t.Errorf("target %q or last error %q does not show the masked URL", st.Target, st.LastError)
			}
			if !tc.closed {
				srv.mu.Lock()
				got := srv.headers[0]
				srv.mu.Unlock()
				if got.Get("Authorization") != "Bearer "+header {
					t.Errorf("the server got Authorization %q", got.Get("Authorization"))
				}
			}
		})
	}
}
