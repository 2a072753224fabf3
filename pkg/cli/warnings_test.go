package cli

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestAPIWarningsClearTheProgressLine: a warning of the API server (a
// Warning header on the proxied answers of node-1) is written as
// client-go's warnings are, once however often it comes, on a line of its
// own: the progress line shown on stderr is cleared before it, and drawn
// again after.
func TestAPIWarningsClearTheProgressLine(t *testing.T) {
	held, heldURL := newAgent(t, "node-1")
	_, fastURL := newAgent(t, "node-2")
	hold := make(chan struct{})
	held.Lock()
	held.Hold = hold
	held.Unlock()
	fake := &fakeAPIServer{agents: map[string]string{"node-1": heldURL, "node-2": fastURL}, nodes: []string{"node-1", "node-2"}}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/nodes/node-1") {
			w.Header().Add("Warning", `299 - "node-1 is deprecated"`)
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(api.Close)

	term, ticks := &fakeTerminal{}, make(chan time.Time)
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: term})
	common.Terminal = &Terminal{Out: term, Width: 80, Ticks: ticks}
	cmd := newRootCommand(common)
	cmd.SetArgs([]string{"sources", "node-1", "node-2", "--kubeconfig", kubeconfig(t, api.URL)})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()

	awaitLine(t, term, ticks, "waiting for 1/2 nodes: node-1")
	close(hold)
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, errFailed) {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not end")
	}
	printed := term.printed()
	if n := slices.Index(printed, "Warning: node-1 is deprecated"); n < 0 || slices.Contains(printed[n+1:], printed[n]) {
		t.Errorf("the terminal shows\n%s\nwant the API server's warning once, on a line of its own", strings.Join(printed, "\n"))
	}
	for _, l := range append(printed, term.current()) {
		if strings.Contains(l, "waiting for") {
			t.Errorf("the progress line was not cleared before a warning: %q", l)
		}
	}
}
