package cli

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestPodsFilters: pods -l, -n, -A and --source go to the agent as its pod
// query, and the pods shown are the same from an agent that filters and
// from an older one that reads only the source and lists every other pod.
func TestPodsFilters(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		want  []string
		query url.Values
	}{
		{name: "no filter", want: []string{"etcd", "web", "db"}, query: url.Values{}},
		{name: "a label", args: []string{"-l", "app=web"}, want: []string{"web"}, query: url.Values{"labelSelector": {"app=web"}}},
		{name: "a set selector", args: []string{"-l", "tier=control-plane,component in (etcd)"}, want: []string{"etcd"},
			query: url.Values{"labelSelector": {"tier=control-plane,component in (etcd)"}}},
		{name: "a negative selector", args: []string{"-l", "app!=web"}, want: []string{"etcd", "db"}, query: url.Values{"labelSelector": {"app!=web"}}},
		{name: "a namespace", args: []string{"-n", "default"}, want: []string{"web", "db"}, query: url.Values{"namespace": {"default"}}},
		{name: "all namespaces", args: []string{"-A"}, want: []string{"etcd", "web", "db"}, query: url.Values{}},
		{name: "a namespace and a label", args: []string{"-n", "default", "-l", "app"}, want: []string{"web", "db"},
			query: url.Values{"namespace": {"default"}, "labelSelector": {"app"}}},
		{name: "a source and a label", args: []string{"--source", "api", "-l", "app=db"}, want: []string{"db"},
			query: url.Values{"source": {"api"}, "labelSelector": {"app=db"}}},
		{name: "nothing matches", args: []string{"-n", "kube-system", "-l", "app=web"}, query: url.Values{"namespace": {"kube-system"}, "labelSelector": {"app=web"}}},
	}
	fa, u := newAgent(t, "node-1")
	fa.Lock()
	fa.Pods.Items[0].Labels = map[string]string{"component": "etcd", "tier": "control-plane"}
	fa.Pods.Items[1].Labels = map[string]string{"app": "web"}
	db := fa.Pods.Items[1]
	db.Name, db.UID, db.Labels = "db", "u3", map[string]string{"app": "db"}
	fa.Pods.Items = append(fa.Pods.Items, db)
	fa.Unlock()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(fa.PodQueries())
			out, errOut, err := run(t, context.Background(), append([]string{"pods", "--agent-url", u, "-o", "name"}, tc.args...)...)
			if err != nil {
				t.Fatalf("error %v, stderr %s", err, errOut)
			}
			var want string
			for _, n := range tc.want {
				want += "podinfo.podsrc.io/node-1/" + n + "\n"
			}
			if out != want {
				t.Errorf("pods %s printed %q, want %q", strings.Join(tc.args, " "), out, want)
			}
			qs := fa.PodQueries()
			if len(qs) != before+1 || qs[before].Encode() != tc.query.Encode() {
				t.Errorf("the agent was asked %v, want one query %q", qs[before:], tc.query.Encode())
			}
		})
	}
}

// TestPodByNameAsksForThatPod: pod NODE NAMESPACE/NAME asks the agent for
// the pods of that name only.
func TestPodByNameAsksForThatPod(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	out, errOut, err := run(t, context.Background(), "pod", "--agent-url", u, "default/web", "-o", "json")
	if err != nil || !strings.Contains(out, `"uid": "u2"`) || strings.Contains(out, `"u1"`) {
		t.Fatalf("pod default/web printed %q, stderr %q, err %v; want pod u2", out, errOut, err)
	}
	want := url.Values{"namespace": {"default"}, "pod": {"default/web"}}.Encode()
	if qs := fa.PodQueries(); len(qs) != 1 || qs[0].Encode() != want {
		t.Fatalf("the agent was asked %v, want %s", qs, want)
	}
}
