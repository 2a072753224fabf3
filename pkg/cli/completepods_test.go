package cli

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// completions runs cobra's __complete with args and returns the names
// offered, checking the directive says no file completion.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, err := run(t, context.Background(), append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatalf("error %v, stderr %s", err, errOut)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, ":") {
			if l != ":4" {
				t.Errorf("directive %s, want :4 (no file completion)", l)
			}
			continue
		}
		if name, _, _ := strings.Cut(l, "\t"); name != "" {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	return got
}

// TestCompletePods completes the pods of why, pod and --pod from the
// node's agent, through the node proxy and with --agent-url; a node whose
// agent stalls or is missing offers nothing within --node-timeout.
func TestCompletePods(t *testing.T) {
	fa, u1 := newAgent(t, "node-1")
	fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: "web-2", Namespace: "shop", UID: "u3", Source: "api"},
		// A hostile agent's names, which the shell would take as they are.
		v1alpha1.PodInfo{Name: "evil\n--all-nodes", Namespace: "shop", UID: "u4"},
		v1alpha1.PodInfo{Name: "clear\x1b[2J", Namespace: "shop", UID: "u5"},
		v1alpha1.PodInfo{Name: "web", Namespace: "-n", UID: "u6"})
	_, u2 := newAgent(t, "node-2")
	stalled := fakeagent.New("stalled")
	stalled.Fault = fakeagent.FaultStall
	srv := httptest.NewServer(stalled)
	t.Cleanup(srv.Close)
	api := httptest.NewServer(&fakeAPIServer{
		agents: map[string]string{"node-1": u1, "node-2": u2, "stalled": srv.URL},
		nodes:  []string{"node-1", "node-2", "stalled", "gone"},
	})
	t.Cleanup(api.Close)
	kc := []string{"--kubeconfig", kubeconfig(t, api.URL), "--cache-dir", t.TempDir()}
	inShop := []string{"--kubeconfig", kubeconfigInNamespace(t, api.URL, "shop"), "--cache-dir", t.TempDir()}
	direct := []string{"--agent-url", u1}
	all := []string{"default/web", "kube-system/etcd", "shop/web-2"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"why: the node's pods", append(slices.Clip(kc), "why", "node-1", ""), all},
		{"why: by prefix", append(slices.Clip(kc), "why", "node-1", "kube"), []string{"kube-system/etcd"}},
		{"why: -n gives names", append(slices.Clip(kc), "why", "node-1", "-n", "kube-system", ""), []string{"etcd"}},
		{"why: the context's namespace gives names", append(slices.Clip(inShop), "why", "node-1", ""), []string{"web-2"}},
		{"why --all: nothing after the node", append(slices.Clip(kc), "why", "node-1", "--all", ""), nil},
		{"why --all with --agent-url: nothing", append(slices.Clip(direct), "why", "--all", ""), nil},
		{"why: nothing after the pod", append(slices.Clip(kc), "why", "node-1", "default/web", ""), nil},
		{"pod: the node's pods", append(slices.Clip(kc), "pod", "node-1", ""), all},
		{"pod: another node's pods", append(slices.Clip(kc), "pod", "node-2", ""), []string{"default/web", "kube-system/etcd"}},
		{"pod with --agent-url: the agent's pods at once", append(slices.Clip(direct), "pod", ""), all},
		{"why with --agent-url and a node", append(slices.Clip(direct), "why", "node-1", "de"), []string{"default/web"}},
		{"events --pod", append(slices.Clip(kc), "events", "node-1", "--pod", "sh"), []string{"shop/web-2"}},
		{"events -A --pod: every namespace, whatever the context's", append(slices.Clip(inShop), "events", "node-1", "-A", "--pod", ""), all},
		{"watch --pod excluded", append(slices.Clip(kc), "watch", "node-1", "--pod", "!default/"), []string{"!default/web"}},
		{"watch --pod of two nodes", append(slices.Clip(kc), "watch", "node-1", "node-2", "-n", "default", "--pod", ""), []string{"web"}},
		{"--pod with --agent-url", append(slices.Clip(direct), "events", "--pod", "kube"), []string{"kube-system/etcd"}},
		{"--pod without a node offers nothing", append(slices.Clip(kc), "events", "--pod", ""), nil},
		{"a stalled agent offers nothing within --node-timeout", append(slices.Clip(kc), "--node-timeout", "200ms", "why", "stalled", ""), nil},
		{"a node without an agent offers nothing", append(slices.Clip(kc), "pod", "gone", ""), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := completions(t, tc.args...); !slices.Equal(got, tc.want) {
				t.Errorf("completions %q, want %q", got, tc.want)
			}
		})
	}
}
