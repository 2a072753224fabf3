package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestAnswerBounds: an answer larger than maxBody, or a stream message
// longer than maxLine, fails with a permanent ReasonTooLarge error that says
// what was too large, instead of being cut silently or read without end.
func TestAnswerBounds(t *testing.T) {
	endless := fakeagent.New("node-1")
	endless.Fault = fakeagent.FaultEndless
	// Announces a gigabyte, then sends nothing: refused before reading.
	announced := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1073741824")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	tests := []struct {
		name    string
		handler http.Handler
		call    func(ctx context.Context, a *Agent) error
		want    string
	}{
		{"endless answer", endless, func(ctx context.Context, a *Agent) error {
			_, err := a.Pods(ctx, v1alpha1.PodQuery{})
			return err
		}, "answered /api/v1alpha1/pods with more than 16 MiB"},
		{"announced size", announced, func(ctx context.Context, a *Agent) error {
			_, err := a.Sources(ctx)
			return err
		}, "answered /api/v1alpha1/sources with more than 16 MiB"},
		{"endless stream line", endless, func(ctx context.Context, a *Agent) error {
			s, err := a.Events(ctx, v1alpha1.EventQuery{})
			if err != nil {
				return err
			}
			defer s.Close()
			_, err = s.Next()
			return err
		}, "sent a stream message longer than 8 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer func() {
				srv.CloseClientConnections()
				srv.Close()
			}()
			a, err := (&Connector{Via: ViaDirect, AgentURL: srv.URL, Timeout: time.Minute}).Agent("")
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(context.Background(), a)
			if ReasonOf(err) != ReasonTooLarge || !IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (%s), want a permanent %s error saying %q", err, ReasonOf(err), ReasonTooLarge, tc.want)
			}
		})
	}
}
