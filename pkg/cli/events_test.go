package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// eventsCluster is a fake API server whose two nodes' agents hold a little
// history.
func eventsCluster(t *testing.T) (kubeconfigPath string, node1 *fakeagent.Agent) {
	t.Helper()
	fa1, u1 := newAgent(t, "node-1")
	fa2, u2 := newAgent(t, "node-2")
	for _, fa := range []*fakeagent.Agent{fa1, fa2} {
		fa.Publish(
			v1alpha1.Event{Kind: "config", Op: "ADD", Source: "file", Pods: []v1alpha1.PodRef{{Name: "etcd", Namespace: "kube-system", Labels: map[string]string{"component": "etcd"}}}, Handler: v1alpha1.SyncHandlerPodAdditions},
			v1alpha1.Event{Kind: "config", Op: "ADD", Source: "api", Pods: []v1alpha1.PodRef{{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}}, {Name: "db-1", Namespace: "default"}}, Handler: v1alpha1.SyncHandlerPodAdditions},
			v1alpha1.Event{Kind: "pleg", Type: "ContainerDied", Namespace: "default", PodName: "web-1", ContainerName: "nginx", Labels: map[string]string{"app": "web"}, Handler: v1alpha1.SyncHandlerPodSyncs},
			v1alpha1.Event{Kind: "config", Op: "UPDATE", Source: "api", Pods: []v1alpha1.PodRef{{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}}}, Handler: v1alpha1.SyncHandlerPodUpdates},
		)
	}
	srv := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u1, "node-2": u2}, nodes: []string{"node-1", "node-2"}})
	t.Cleanup(srv.Close)
	return kubeconfig(t, srv.URL), fa1
}

// TestEventsEndsOnItsOwn: events prints the history its flags select, of
// every node, as the agents filter it, and exits without being stopped.
func TestEventsEndsOnItsOwn(t *testing.T) {
	kc, fa1 := eventsCluster(t)
	tests := []struct {
		name string
		args []string
		// want is, per line, the node and sequence number of the events.
		want []string
		// query is what the agents were asked, in part.
		query string
	}{
		{name: "everything", args: []string{"node-1"}, want: []string{"node-1 1", "node-1 2", "node-1 3", "node-1 4"}, query: "since=0&until=now"},
		{name: "a tail", args: []string{"node-1", "--tail=2"}, want: []string{"node-1 3", "node-1 4"}, query: "tail=2"},
		{name: "since and until", args: []string{"node-1", "--since=1", "--until=3"}, want: []string{"node-1 2", "node-1 3"}, query: "since=1&until=3"},
		{name: "ops, case-insensitive, and a negation", args: []string{"node-1", "--op=add", "--source=!file"}, want: []string{"node-1 2"}, query: "op=ADD"},
		{name: "a pod label selector and a type", args: []string{"node-1", "-l", "app=web", "--type=ContainerDied"}, want: []string{"node-1 3"}, query: "labelSelector=app%3Dweb"},
		{name: "a pod glob with its namespace and a container", args: []string{"node-1", "--pod=default/web-*", "--container=nginx"}, want: []string{"node-1 3"}, query: "pod=default%2Fweb-%2A"},
		{name: "handlers, in any case, filtered by the agent", args: []string{"node-1", "--handler=handlepodsyncs,HandlePodUpdates"}, want: []string{"node-1 3", "node-1 4"}, query: "handler=handlepodsyncs&handler=HandlePodUpdates"},
		{name: "a namespace", args: []string{"node-1", "-n", "kube-system"}, want: []string{"node-1 1"}, query: "namespace=kube-system"},
		{name: "all nodes", args: []string{"--all-nodes", "--kind=pleg"}, want: []string{"node-1 3", "node-2 3"}},
		{name: "node selector", args: []string{"--node-selector=x=y", "--kind=pleg"}, want: []string{"node-1 3", "node-2 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// No cancellation: the command must end by itself, the
			// context only bounds a broken test.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, errOut, err := run(t, ctx, append([]string{"events", "--kubeconfig", kc, "-o", "json"}, tc.args...)...)
			if err != nil || ctx.Err() != nil {
				t.Fatalf("err %v, context %v, stderr %s", err, ctx.Err(), errOut)
			}
			var l struct {
				Items []struct {
					NodeName string          `json:"nodeName"`
					Event    *v1alpha1.Event `json:"event"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatalf("events -o json printed %q: %v, want a List", out, err)
			}
			var got []string
			for _, m := range l.Items {
				if m.Event == nil {
					t.Fatalf("events -o json printed %q, want only events", out)
				}
				got = append(got, m.NodeName+" "+strconv.FormatUint(m.Event.Seq, 10))
			}
			// Nodes' events are kept as they arrive: sort.
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			qs := fa1.EventQueries()
			if q := qs[len(qs)-1].Encode(); !strings.Contains(q, tc.query) {
				t.Fatalf("node-1's agent was asked %q, want %q in it", q, tc.query)
			}
		})
	}
	t.Run("no events says so", func(t *testing.T) {
		out, errOut, err := run(t, context.Background(), "events", "node-1", "--kubeconfig", kc, "--type=PodSync")
		if err != nil || out != "" || !strings.Contains(errOut, "No resources found on node node-1.") {
			t.Fatalf("out %q, stderr %q, err %v", out, errOut, err)
		}
	})
}

// TestPodSelectorIsNotANodeSelector: -l selects pods; each way an old
// command line could mean nodes is refused with a pointer to
// --node-selector, and the pod selector that is one goes to the agent.
func TestPodSelectorIsNotANodeSelector(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a command without pods", []string{"pleg", "-l", "disk=ssd"}, `this command does not select pods by label: to select nodes by label, use --node-selector="disk=ssd"`},
		{"sources, which has no pods", []string{"sources", "n1", "--selector", "app=web"}, `--node-selector="app=web"`},
		{"pods with -l as the only node selection", []string{"pods", "-l", "disk=ssd"}, `selects pods, as in kubectl, not nodes`},
		{"-l as the only node selection", []string{"watch", "-l", "disk=ssd"}, `-l/--selector "disk=ssd" selects pods, as in kubectl, not nodes: name the nodes, use --all-nodes, or, to select nodes by label, use --node-selector="disk=ssd"`},
		{"a well-known node label", []string{"events", "--all-nodes", "-l", "node-role.kubernetes.io/control-plane"}, "node-role.kubernetes.io/control-plane is a node label: to select nodes by label, use --node-selector"},
		{"a node label among others", []string{"events", "n1", "-l", "app=web,kubernetes.io/hostname=n1"}, "kubernetes.io/hostname is a node label"},
		{"node selector and all nodes", []string{"events", "--all-nodes", "--node-selector", "a=b"}, "--all-nodes and --node-selector exclude each other"},
		{"a bad pod selector", []string{"events", "n1", "-l", "app==web="}, `-l/--selector "app==web="`},
		{"a bad pod selector of pods", []string{"pods", "n1", "-l", "app==web="}, `-l/--selector "app==web="`},
		{"a bad namespace of pods", []string{"pods", "n1", "-n", "Kube_System"}, `-n/--namespace "Kube_System": a lowercase RFC 1123 label`},
		{"a bad op", []string{"events", "n1", "--op", "CREATE"}, `--op "CREATE": want one of ADD, UPDATE, DELETE, REMOVE, RECONCILE, SET`},
		{"a bad handler", []string{"events", "n1", "--handler", "HandlePod"}, `--handler "HandlePod": want one of HandlePodAdditions, HandlePodUpdates, HandlePodRemoves, HandlePodReconcile, HandlePodSyncs, ignored`},
		{"a bad until", []string{"events", "n1", "--until", "tomorrow"}, `--until "tomorrow": want an event sequence number, a duration such as 5m, or now`},
		{"a negative tail", []string{"watch", "n1", "--tail=-1"}, "--tail -1"},
		{"-A and -n", []string{"events", "n1", "-A", "-n", "x"}, "exclude each other"},
		{"snapshot and tail", []string{"watch", "n1", "--snapshot", "--tail=3"}, "--snapshot starts with the pods' state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, context.Background(), tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestEventsListWithinMaxBytes: events prints -o json as one List, which
// holds every event until the end, within --max-bytes; -o name prints each
// event as it comes and holds none.
func TestEventsListWithinMaxBytes(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	fa.Capacity = 0
	noise := strings.Repeat("x", 1<<10)
	for range 2000 {
		fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodName: "web", Namespace: "default", Data: noise})
	}
	_, errOut, err := run(t, context.Background(), "events", "--agent-url", u, "-o", "json", "--max-bytes=1Mi")
	if err == nil || !strings.Contains(errOut+err.Error(), "--max-bytes") {
		t.Errorf("events -o json of 2 MiB with --max-bytes=1Mi: err %v, stderr %s; want an error naming --max-bytes", err, errOut)
	}
	out, errOut, err := run(t, context.Background(), "events", "--agent-url", u, "-o", "name", "--max-bytes=1Mi")
	if err != nil || strings.Count(out, "\n") != 2000 {
		t.Errorf("events -o name: err %v, %d lines, want 2000; stderr %s", err, strings.Count(out, "\n"), errOut)
	}
}

// TestEventsPodDidYouMean: events that find nothing for a --pod that no
// node read has say which pods close to it they have, once however many
// nodes have them; a pod the node has (by name or UID), a glob and an
// exclusion get no hint.
func TestEventsPodDidYouMean(t *testing.T) {
	kc, _ := eventsCluster(t)
	tests := []struct {
		name string
		args []string
		want string // "" for no hint
	}{
		{name: "a typo", args: []string{"node-1", "--pod=wbe"}, want: "no pod wbe on the nodes read: did you mean web?"},
		{name: "a typo with its namespace", args: []string{"node-1", "--pod=default/wbe"}, want: "no pod default/wbe on the nodes read: did you mean default/web?"},
		{name: "a typo on every node", args: []string{"--all-nodes", "--pod=wbe"}, want: "no pod wbe on the nodes read: did you mean web?"},
		{name: "a pod without events", args: []string{"node-1", "--pod=web"}},
		{name: "a pod's UID", args: []string{"node-1", "--pod=u2"}},
		{name: "a glob", args: []string{"node-1", "--pod=wbe*"}},
		{name: "an exclusion", args: []string{"node-1", "--pod=!wbe", "--pod=nothing-close"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append([]string{"--kubeconfig", kc, "events"}, tc.args...)...)
			if err != nil || out != "" || !strings.Contains(errOut, "No resources found") {
				t.Fatalf("err %v, out %q, stderr %q; want no events, and No resources found", err, out, errOut)
			}
			if got := strings.Count(errOut, "did you mean"); tc.want == "" && got != 0 || tc.want != "" && (got != 1 || !strings.Contains(errOut, tc.want)) {
				t.Errorf("stderr %q, want the hint %q", errOut, tc.want)
			}
		})
	}
}
