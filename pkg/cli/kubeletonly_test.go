package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestKubeletOnlyByDefault: watch and events show the PLEG events the
// kubelet sends; those it does not (ContainerChanged, a dropped event)
// show with --all-events or when --type names their type.
func TestKubeletOnlyByDefault(t *testing.T) {
	sends, notSent := true, false
	fa := fakeagent.New("node-1")
	pleg := func(typ, pod string, kubeletSends *bool) v1alpha1.Event {
		return v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: typ, PodName: pod, Namespace: "ns", PodUID: types.UID("u-" + pod), KubeletSends: kubeletSends}
	}
	fa.Publish(pleg("ContainerStarted", "started", &sends), pleg("ContainerChanged", "changed", &notSent), pleg("ContainerDied", "dropped", &notSent),
		pleg("ContainerStarted", "older-agent", nil))
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	all := []string{"ns/started", "ns/changed", "ns/dropped", "ns/older-agent"}
	tests := []struct {
		name  string
		args  []string
		shown []string
	}{
		{"events", []string{"events"}, []string{"ns/started", "ns/older-agent"}},
		{"events json", []string{"events", "-o", "json"}, []string{`"podName": "started"`, `"podName": "older-agent"`}},
		{"all events", []string{"events", "--all-events"}, all},
		{"type names ContainerChanged", []string{"events", "--type=ContainerChanged"}, []string{"ns/changed"}},
		{"type names ContainerDied", []string{"events", "--type=containerdied"}, []string{"ns/dropped"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append(tc.args, "--agent-url", srv.URL)...)
			if err != nil {
				t.Fatalf("%v; stderr %s", err, errOut)
			}
			var hidden []string
			for _, p := range all {
				if !strings.Contains(strings.Join(tc.shown, " "), strings.TrimPrefix(p, "ns/")) {
					hidden = append(hidden, p, `"podName": "`+strings.TrimPrefix(p, "ns/")+`"`)
				}
			}
			checkOutput(t, out, tc.shown, hidden)
		})
	}
	t.Run("watch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, errOut, done := startCommand(ctx, "watch", "--since=0", "--agent-url", srv.URL)
		awaitOutput(t, out, errOut, func(stdout string) bool { return strings.Contains(stdout, "ns/older-agent") })
		cancel()
		<-done
		checkOutput(t, out.String(), []string{"ns/started"}, []string{"ns/changed", "ns/dropped"})
	})
}
