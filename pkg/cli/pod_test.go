package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestPodRequestTimeoutIsPerRequest: pod's --request-timeout bounds each
// request, as kubectl's does, not the command: an agent that takes half
// the timeout to answer each of the command's requests (more than the
// timeout in all) is shown, and --node-timeout bounds the whole.
func TestPodRequestTimeoutIsPerRequest(t *testing.T) {
	// The agent answers each request after perRequest; the command's four or
	// more requests take longer than --request-timeout in all, while each
	// leaves it seconds to spare on a loaded machine.
	const perRequest = time.Second
	fa := fakeagent.New("node-1")
	fa.Pods.Items = []v1alpha1.PodInfo{{Name: "web", Namespace: "default", UID: "u2", Source: v1alpha1.SourceAPI}}
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-time.After(perRequest):
		case <-r.Context().Done():
			return
		}
		fa.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	timeout := 7 * perRequest / 2
	t.Run("each request gets --request-timeout", func(t *testing.T) {
		out, errOut, err := run(t, context.Background(), "pod", "--agent-url", srv.URL, "default/web", "-o", "json",
			"--request-timeout", timeout.String(), "--node-timeout=0")
		if err != nil || !strings.Contains(out, `"uid": "u2"`) {
			t.Fatalf("pod printed %q, stderr %q, err %v", out, errOut, err)
		}
		if n := time.Duration(requests.Load()); n*perRequest <= timeout {
			t.Fatalf("%d requests: the test's agent was not slower than --request-timeout in all", n)
		}
	})
	t.Run("--node-timeout bounds the command", func(t *testing.T) {
		_, errOut, err := run(t, context.Background(), "pod", "--agent-url", srv.URL, "default/web",
			"--request-timeout", timeout.String(), "--node-timeout", timeout.String())
		if err == nil || !strings.Contains(err.Error(), "did not answer within --node-timeout="+timeout.String()) {
			t.Fatalf("err %v, stderr %q; want the node timed out", err, errOut)
		}
	})
}
