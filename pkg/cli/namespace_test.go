package cli

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// kubeconfigInNamespace writes a kubeconfig for server whose context sets
// namespace ns.
func kubeconfigInNamespace(t *testing.T, server, ns string) string {
	t.Helper()
	path := kubeconfig(t, server)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "context: {cluster: c, user: u}", "context: {cluster: c, user: u, namespace: "+ns+"}", 1)
	path = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestContextNamespace takes the namespace of the kubeconfig's context as
// the default of -n, as kubectl does: -n overrides it, -A lists every
// namespace, and a context without one leaves every namespace.
func TestContextNamespace(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: "web-2", Namespace: "shop", UID: "u3", Source: "api"})
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u}, nodes: []string{"node-1"}})
	t.Cleanup(api.Close)
	inShop := []string{"--kubeconfig", kubeconfigInNamespace(t, api.URL, "shop")}
	plain := []string{"--kubeconfig", kubeconfig(t, api.URL)}
	tests := []struct {
		name      string
		args      []string
		namespace []string // the namespace the agent is asked for
		want      []string
		notWant   []string
	}{
		{name: "pods in the context's namespace", args: append(slices.Clip(inShop), "pods", "node-1"), namespace: []string{"shop"}, want: []string{"web-2"}, notWant: []string{"etcd"}},
		{name: "pods -n overrides the context", args: append(slices.Clip(inShop), "pods", "node-1", "-n", "kube-system"), namespace: []string{"kube-system"}, want: []string{"etcd"}, notWant: []string{"web-2"}},
		{name: "pods -A lists every namespace", args: append(slices.Clip(inShop), "pods", "node-1", "-A"), want: []string{"etcd", "web-2"}},
		{name: "pods without a context namespace: every namespace", args: append(slices.Clip(plain), "pods", "node-1"), want: []string{"etcd", "web-2"}},
		{name: "pod POD in the context's namespace", args: append(slices.Clip(inShop), "pod", "node-1", "web-2"), namespace: []string{"shop"}, want: []string{"web-2"}},
		{name: "events in the context's namespace", args: append(slices.Clip(inShop), "events", "node-1"), namespace: []string{"shop"}},
		{name: "events -A", args: append(slices.Clip(inShop), "events", "node-1", "-A")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods, events := len(fa.PodQueries()), len(fa.EventQueries())
			out, errOut, err := run(t, context.Background(), tc.args...)
			if err != nil {
				t.Fatalf("error %v, stderr %s", err, errOut)
			}
			checkOutput(t, out, tc.want, tc.notWant)
			// The command's first question: the pod list, else the events.
			asked := append(fa.PodQueries()[pods:], fa.EventQueries()[events:]...)
			if len(asked) == 0 {
				t.Fatal("the agent was asked nothing")
			}
			if got := asked[0]["namespace"]; !slices.Equal(got, tc.namespace) {
				t.Errorf("asked for namespace %q, want %q (query %v)", got, tc.namespace, asked[0])
			}
		})
	}
}

// TestWhyContextNamespace: why looks for POD in the context's namespace,
// not in every namespace: default/web is not shop's.
func TestWhyContextNamespace(t *testing.T) {
	_, u := newAgent(t, "node-1")
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u}, nodes: []string{"node-1"}})
	t.Cleanup(api.Close)
	for _, tc := range []struct {
		name, namespace, want string
	}{
		{"the context's namespace", "shop", `no pod "web" on node node-1`},
		{"a context without one: every namespace", "", `"name": "web"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := kubeconfig(t, api.URL)
			if tc.namespace != "" {
				kc = kubeconfigInNamespace(t, api.URL, tc.namespace)
			}
			out, errOut, err := run(t, context.Background(), "--kubeconfig", kc, "why", "node-1", "web", "-o", "json")
			if got := fmt.Sprint(out, errOut, err); !strings.Contains(got, tc.want) {
				t.Errorf("why printed %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUnknownContext: a --context the kubeconfig does not have fails, as
// kubectl does, rather than leaving every namespace: targetNamespace says
// so (but for -n, which needs no context, and -A), and every command that
// takes -n fails before it asks an agent anything.
func TestUnknownContext(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u}, nodes: []string{"node-1"}})
	t.Cleanup(api.Close)
	kc := kubeconfigInNamespace(t, api.URL, "shop")
	const want = `loading the cluster's configuration: context "nosuch" does not exist`
	for _, tc := range []struct {
		name      string
		context   string
		namespace string
		all       bool
		want      string
		wantErr   bool
	}{
		{name: "the current context", want: "shop"},
		{name: "an unknown context", context: "nosuch", wantErr: true},
		{name: "an unknown context with -n", context: "nosuch", namespace: "web", want: "web"},
		{name: "an unknown context with -A", context: "nosuch", all: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewCommonOptions(genericiooptions.NewTestIOStreamsDiscard())
			o.ConfigFlags.KubeConfig, o.ConfigFlags.Context, o.ConfigFlags.Namespace = &kc, &tc.context, &tc.namespace
			got, err := o.targetNamespace(tc.all)
			if tc.wantErr && (err == nil || err.Error() != want) || !tc.wantErr && (err != nil || got != tc.want) {
				t.Errorf("targetNamespace = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	for _, args := range [][]string{
		{"pods", "node-1"},
		{"pod", "node-1", "web"},
		{"why", "node-1", "web"},
		{"events", "node-1"},
		{"watch", "node-1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			pods, events := len(fa.PodQueries()), len(fa.EventQueries())
			_, errOut, err := run(t, context.Background(), append([]string{"--kubeconfig", kc, "--context", "nosuch"}, args...)...)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v (stderr %q), want %q", err, errOut, want)
			}
			if len(fa.PodQueries()) != pods || len(fa.EventQueries()) != events {
				t.Error("the agent was asked for pods or events")
			}
		})
	}
}
