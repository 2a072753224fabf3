package cli

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestEventFlagsToQuery: the event flags of events and watch go in, the
// wire query the agents get (v1alpha1.EventQuery, encoded) comes out, in
// the agent's spelling, or the flags are refused with the flag named.
func TestEventFlagsToQuery(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		args      []string
		namespace string
		want      url.Values
		wantErr   string
	}{
		{name: "no flags", want: url.Values{}},
		{name: "kinds in any case", args: []string{"--kind=PLEG", "--kind=Config"}, want: url.Values{"kind": {"pleg", "config"}}},
		{name: "an excluded kind", args: []string{"--kind=!pleg"}, want: url.Values{"kind": {"!pleg"}}},
		{name: "ops, comma separated", args: []string{"--op=add,!update"}, want: url.Values{"op": {"ADD", "!UPDATE"}}},
		{name: "types", args: []string{"--type=containerdied"}, want: url.Values{"type": {"ContainerDied"}}},
		{name: "sources", args: []string{"--source=File", "--source=!api"}, want: url.Values{"source": {"file", "!api"}}},
		{name: "an origin keeps its comma", args: []string{"--origin=/etc/kubernetes/manifests/a,b.yaml"}, want: url.Values{"origin": {"/etc/kubernetes/manifests/a,b.yaml"}}},
		{name: "an origin URL is masked", args: []string{"--origin=http://u:p@config.example/pods?token=s"}, want: url.Values{"origin": {"http://xxxxx@config.example/pods?token=xxxxx"}}},
		{name: "pods and containers", args: []string{"--pod=kube-system/*", "--pod=!web-1", "--container=app*"}, want: url.Values{"pod": {"kube-system/*", "!web-1"}, "container": {"app*"}}},
		{name: "handlers", args: []string{"--handler=HandlePodSyncs"}, want: url.Values{"handler": {"HandlePodSyncs"}}},
		{name: "the namespace", namespace: "kube-system", want: url.Values{"namespace": {"kube-system"}}},
		{name: "a label selector", args: []string{"-l", "app=web"}, want: url.Values{"labelSelector": {"app=web"}}},
		{name: "since a sequence number", args: []string{"--since=41"}, want: url.Values{"since": {"41"}}},
		{name: "since a duration", args: []string{"--since=10m"}, want: url.Values{"since": {"10m0s"}}},
		{name: "since a time", args: []string{"--since=2026-11-22T11:50:00Z"}, want: url.Values{"since": {"10m0s"}}},
		{name: "until and tail", args: []string{"--until=90", "--tail=5"}, want: url.Values{"until": {"90"}, "tail": {"5"}}},
		{name: "all namespaces and -n", args: []string{"-A"}, namespace: "default", wantErr: "-A/--all-namespaces and -n/--namespace exclude each other"},
		{name: "a negative tail", args: []string{"--tail=-1"}, wantErr: "--tail -1"},
		{name: "since after until", args: []string{"--since=90", "--until=41"}, wantErr: "--since 90 is after --until 41"},
		{name: "a time to come", args: []string{"--since=2026-11-22T13:00:00Z"}, wantErr: "is in the future"},
		{name: "an unknown kind", args: []string{"--kind=nosuch"}, wantErr: "--kind \"nosuch\""},
		{name: "a bad selector", args: []string{"-l", "app in ("}, wantErr: "-l/--selector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f EventQueryFlags
			cmd := &cobra.Command{Use: "events"}
			f.AddFlags(cmd, "")
			cmd.Flags().StringVarP(&f.Selector, "selector", "l", "", "")
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			q, err := f.ToQuery(tc.namespace, now)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ToQuery = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Encode(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("the query of %q is %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}
