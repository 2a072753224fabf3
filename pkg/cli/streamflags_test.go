package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestStreamFlagsReachTheAgent: enum flags in any case and RFC 3339 times
// become the query the agent gets, in its own spelling; events says it
// reads the node, not that it watches it.
func TestStreamFlagsReachTheAgent(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		param string
		want  string
	}{
		{"type", []string{"--type=containerdied"}, "type", "ContainerDied"},
		{"excluded type", []string{"--type=!podsync"}, "type", "!PodSync"},
		{"kind", []string{"--kind=PLEG"}, "kind", "pleg"},
		{"source", []string{"--source=File"}, "source", "file"},
		{"op", []string{"--op=add"}, "op", "ADD"},
		// run's clock is 2026-11-22T12:00:00Z.
		{"since a time", []string{"--since=2026-11-22T11:50:00Z"}, "since", "10m0s"},
		{"until a time", []string{"--until=2026-11-22T11:59:30Z"}, "until", "30s"},
		{"origin, a path", []string{"--origin=/etc/kubernetes/manifests/web.yaml"}, "origin", "/etc/kubernetes/manifests/web.yaml"},
		// The URL's credentials never leave the plugin; a comma is part of
		// the value.
		{"origin, a URL", []string{"--origin=!http://user:pw@config.example/pods?token=s3cret,x"}, "origin", "!http://xxxxx@config.example/pods?token=xxxxx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa := fakeagent.New("node-1")
			srv := httptest.NewServer(fa)
			t.Cleanup(srv.Close)
			_, errOut, err := run(t, context.Background(), append([]string{"events", "--agent-url", srv.URL}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v; stderr %s", err, errOut)
			}
			qs := fa.EventQueries()
			if len(qs) == 0 {
				t.Fatal("the agent got no stream request")
			}
			if got := qs[len(qs)-1][tc.param]; len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s=%q, want %q", tc.param, got, tc.want)
			}
			if !strings.HasPrefix(errOut, "reading the agent at "+srv.URL+"\n") {
				t.Errorf("stderr %q does not say it reads the agent", errOut)
			}
		})
	}
}

// TestDisabledPLEGSaysOnlyThat: a node whose PLEG is off has no relist
// figures to show.
func TestDisabledPLEGSaysOnlyThat(t *testing.T) {
	fa := fakeagent.New("node-1")
	fa.PLEG = v1alpha1.PLEGStatus{TypeMeta: fa.PLEG.TypeMeta, NodeName: "node-1", Enabled: false, Message: "no container runtime endpoint"}
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	out, errOut, err := run(t, context.Background(), "pleg", "--agent-url", srv.URL, "--no-headers")
	if err != nil {
		t.Fatalf("%v; stderr %s", err, errOut)
	}
	if got := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(got, " ") != "node-1 disabled" {
		t.Errorf("the row of a disabled PLEG is %q, want node-1 disabled and nothing else:\n%s", got, out)
	}
}
