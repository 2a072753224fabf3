package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

func init() {
	// The golden files show event times in UTC.
	time.Local = time.UTC
}

// testNow is the clock run gives the commands.
var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// richAgent serves a fake agent for node with sources, pods with labels
// and runtime state, a PLEG and events.
func richAgent(t *testing.T, node string, n int) (*fakeagent.Agent, string) {
	t.Helper()
	ago := func(d time.Duration) *metav1.Time { tm := metav1.NewTime(testNow.Add(-d)); return &tm }
	fa := fakeagent.New(node)
	fa.Version.GoVersion = "go1.25.4"
	fa.Sources.Items = []v1alpha1.Source{
		{Name: "api", Target: "https://10.0.0.1:6443", Seen: true, LastUpdate: ago(time.Duration(n) * time.Second), Pods: n, Updates: 10 * int64(n)},
		{Name: "file", Target: "/etc/kubernetes/manifests", Seen: true, LastUpdate: ago(time.Duration(n) * time.Minute), Pods: 1, Updates: 2,
			LastError:     "decoding /etc/kubernetes/manifests/broken.yaml: yaml: line 12: mapping values are not allowed in this context; the file contributes no pod until it is fixed\nat line 12",
			LastErrorTime: ago(time.Hour)},
	}
	fa.Sources.Journal = &v1alpha1.JournalStatus{State: v1alpha1.JournalOn, Events: 1200 * n, Bytes: int64(n) * 3 << 20, Oldest: ago(time.Duration(n) * 2 * time.Hour),
		MaxBytes: 64 << 20, MaxAge: metav1.Duration{Duration: 7 * 24 * time.Hour}}
	if n > 1 {
		fa.Sources.Journal.Dropped = map[string]uint64{"size": 10, "age": 2}
	}
	fa.PLEG.Relists, fa.PLEG.Pods, fa.PLEG.LastRelist = uint64(1000*n), 3*n, ago(time.Second)
	fa.PLEG.RelistDuration = v1alpha1.Latency{Count: 10, P50: 0.01 * float64(n), P99: 0.02 * float64(n), Max: 0.05}
	fa.PLEG.RuntimeEvents, fa.PLEG.EventRelists = "following", uint64(40*n)
	fa.Pods.Items = []v1alpha1.PodInfo{
		{Name: "etcd-" + node, Namespace: "kube-system", UID: types.UID("static-" + node), Source: "file", Static: true, ConfigHash: "h-" + node,
			Origin: "/etc/kubernetes/manifests/etcd.yaml", Containers: []string{"etcd"}, RestartPolicy: "Always",
			Labels: map[string]string{"component": "etcd", "tier": "control-plane"}, FirstSeen: testNow.Add(-time.Duration(n) * time.Hour).Format(time.RFC3339),
			Runtime: &v1alpha1.RuntimePod{SandboxID: "sb-" + node, SandboxState: "ready", IPs: []string{"10.0.0." + string(rune('0'+n))},
				Containers: []v1alpha1.RuntimeContainer{{ID: "containerd://c-" + node, Name: "etcd", State: "running", Image: "registry.k8s.io/etcd:3.6", RestartCount: n, StartedAt: ago(time.Minute)}}}},
		{Name: "etcd-" + node, Namespace: "kube-system", UID: types.UID("mirror-" + node), Source: "api", Mirror: true, ConfigMirror: "h-" + node,
			Labels: map[string]string{"component": "etcd", "tier": "control-plane"}},
		{Name: "web-" + node, Namespace: "default", UID: types.UID("web-" + node), Source: "api", Containers: []string{"web"}, RestartPolicy: "Always",
			Labels: map[string]string{"app": "web"}, FirstSeen: testNow.Add(-time.Duration(n) * time.Minute).Format(time.RFC3339)},
	}
	fa.Publish(
		v1alpha1.Event{Time: metav1.NewMicroTime(testNow.Add(-time.Hour)), Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: "file",
			Pods: []v1alpha1.PodRef{{Name: "etcd-" + node, Namespace: "kube-system", UID: types.UID("static-" + node), Origin: "/etc/kubernetes/manifests/etcd.yaml"}}},
		v1alpha1.Event{Time: metav1.NewMicroTime(testNow.Add(-50 * time.Minute)), Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: "api",
			Pods: []v1alpha1.PodRef{{Name: "web-" + node, Namespace: "default", UID: types.UID("web-" + node)}}},
		v1alpha1.Event{Time: metav1.NewMicroTime(testNow.Add(-time.Minute)), Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted",
			PodUID: types.UID("static-" + node), PodName: "etcd-" + node, Namespace: "kube-system", Data: "c-" + node, ContainerName: "etcd"},
	)
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	return fa, srv.URL
}

// twoNodes serves node-1 and node-2 behind a fake API server and returns
// its kubeconfig.
func twoNodes(t *testing.T) string {
	t.Helper()
	_, u1 := richAgent(t, "node-1", 1)
	_, u2 := richAgent(t, "node-2", 2)
	srv := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": u1, "node-2": u2}, nodes: []string{"node-1", "node-2"}, kubelet: "v1.36.3"})
	t.Cleanup(srv.Close)
	return kubeconfig(t, srv.URL)
}

// TestGoldenCommands prints every list command in every output format
// through the fake agents of two nodes.
func TestGoldenCommands(t *testing.T) {
	kc := twoNodes(t)
	formats := []struct {
		name string
		args []string
	}{
		{"table", nil},
		{"wide", []string{"-o", "wide"}},
		{"no-headers", []string{"--no-headers"}},
		{"json", []string{"-o", "json"}},
		{"yaml", []string{"-o", "yaml"}},
		{"name", []string{"-o", "name"}},
		{"jsonpath", []string{"-o", `jsonpath={range .items[*]}{.nodeName} {.kind} {.metadata.name}{"\n"}{end}`}},
		{"go-template", []string{"--template", `{{range .items}}{{.nodeName}} {{.kind}}{{"\n"}}{{end}}`}},
		{"custom-columns", []string{"-o", "custom-columns=NODE:.nodeName,NAME:.metadata.name,KIND:.kind"}},
		{"sort-by", []string{"--sort-by", "{.metadata.name}"}},
	}
	commands := []struct {
		name  string
		extra [][]string // more formats: name, args
	}{
		{"sources", [][]string{{"sort-by-update", "--sort-by", ".lastUpdate"}}},
		{"pods", [][]string{
			{"show-labels", "--show-labels"},
			{"label-columns", "-L", "app", "-L", "tier"},
			{"label-columns-sorted", "-L", "tier", "--sort-by", ".metadata.uid", "-o", "wide"},
			{"show-kind", "--show-kind"},
		}},
		{"pleg", [][]string{{"sort-by-relists", "--sort-by", "{.relists}", "--no-headers"}}},
	}
	for _, c := range commands {
		all := formats
		for _, e := range c.extra {
			all = append(all, struct {
				name string
				args []string
			}{e[0], e[1:]})
		}
		for _, f := range all {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				// One node at a time: the tables print node by node as
				// nodes answer, here in the order given.
				args := append([]string{c.name, "node-2", "node-1", "--kubeconfig", kc, "--max-concurrency=1"}, f.args...)
				out, errOut, err := run(t, context.Background(), args...)
				if err != nil {
					t.Fatalf("%v: %v, stderr %s", args, err, errOut)
				}
				golden.Check(t, c.name+"-"+f.name+".txt", []byte(out))
			})
		}
	}
}

// TestOneJSONPathForOneNodeOrMany runs the same jsonpath over one node and
// two: the items have one shape, so the lines of both nodes are the one
// node's lines and the other's.
func TestOneJSONPathForOneNodeOrMany(t *testing.T) {
	kc := twoNodes(t)
	for _, cmd := range []string{"sources", "pods", "pleg"} {
		t.Run(cmd, func(t *testing.T) {
			const jp = `jsonpath={range .items[*]}{.nodeName}/{.kind}/{.metadata.name}{"\n"}{end}`
			get := func(nodes ...string) string {
				out, errOut, err := run(t, context.Background(), append(append([]string{cmd}, nodes...), "--kubeconfig", kc, "-o", jp)...)
				if err != nil {
					t.Fatalf("%v, stderr %s", err, errOut)
				}
				return out
			}
			one, other, both := get("node-1"), get("node-2"), get("node-1", "node-2")
			if one == "" || !strings.HasPrefix(one, "node-1/") {
				t.Fatalf("one node gives %q, want lines of node-1's items", one)
			}
			if both != one+other {
				t.Fatalf("two nodes give\n%s\nwant node-1's lines then node-2's:\n%s%s", both, one, other)
			}
			// -o json too: a List whatever the number of nodes.
			out, _, err := run(t, context.Background(), cmd, "node-1", "--kubeconfig", kc, "-o", "json")
			if err != nil {
				t.Fatal(err)
			}
			var l struct {
				Kind  string `json:"kind"`
				Items []struct {
					NodeName string `json:"nodeName"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &l); err != nil || l.Kind != "List" || len(l.Items) == 0 || l.Items[0].NodeName != "node-1" {
				t.Fatalf("-o json of one node = %s (%v), want a List of items with nodeName", out, err)
			}
		})
	}
}

// TestGoldenPod shows one pod by UID and by name, in each format.
func TestGoldenPod(t *testing.T) {
	kc := twoNodes(t)
	tests := []struct {
		name string
		args []string
	}{
		{"by-name", []string{"node-2", "kube-system/etcd-node-2"}},
		{"by-uid", []string{"node-2", "web-node-2"}},
		{"mirror-by-uid-json", []string{"node-1", "mirror-node-1", "-o", "json"}},
		{"by-name-yaml", []string{"node-1", "kube-system/etcd-node-1", "-o", "yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append(append([]string{"pod"}, tc.args...), "--kubeconfig", kc)...)
			if err != nil {
				t.Fatalf("%v, stderr %s", err, errOut)
			}
			golden.Check(t, "pod-"+tc.name+".txt", []byte(out))
		})
	}
}

func TestPodErrors(t *testing.T) {
	kc := twoNodes(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no pod", []string{"node-1"}, "name a node and a pod"},
		{"bad ref", []string{"node-1", "a/b/c"}, "want POD, NAMESPACE/POD"},
		{"unknown name", []string{"node-1", "default/nope"}, "no pod default/nope on node node-1 (kubectl podsrc pods -n default node-1"},
		{"unknown UID", []string{"node-1", "nope"}, `no pod "nope" on node node-1: no pod has that name`},
		{"typo of a name", []string{"node-1", "etcd-nod-1"}, "nor that UID (did you mean etcd-node-1?)"},
		{"typo of a qualified name", []string{"node-1", "kube-system/etcd-nod-1"}, "no pod kube-system/etcd-nod-1 on node node-1 (did you mean kube-system/etcd-node-1?)"},
		{"bad output", []string{"node-1", "nope", "-o", "xml"}, "unable to match a printer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, context.Background(), append(append([]string{"pod"}, tc.args...), "--kubeconfig", kc)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("direct", func(t *testing.T) {
		_, u := richAgent(t, "node-3", 3)
		out, errOut, err := run(t, context.Background(), "pod", "default/web-node-3", "--agent-url", u)
		if err != nil || !bytes.Contains([]byte(out), []byte("web-node-3")) {
			t.Fatalf("out %q, stderr %q, err %v", out, errOut, err)
		}
	})
}

// TestHostilePod shows a pod whose every string is a terminal sequence, in
// every format, and asks failing agents about a pod: nothing raw reaches
// the terminal, and a failing agent's error names its node.
func TestHostilePod(t *testing.T) {
	fa := fakeagent.NewHostile("answers")
	fa.Pods.Items[0].UID = "u-1"
	fa.Pods.Items[0].Source = v1alpha1.SourceFile
	fa.Sources.Items[0].Name = v1alpha1.SourceFile
	fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: fakeagent.Payload, PodUID: "u-1", PodName: fakeagent.Payload, Namespace: fakeagent.Payload, Data: fakeagent.Payload})
	status := fakeagent.NewHostile("status")
	status.Fault = fakeagent.FaultStatus
	srv := httptest.NewServer(&fakeAPIServer{
		agents: map[string]string{"answers": serveUntilCleanup(t, fa), "status": serveUntilCleanup(t, status)},
		nodes:  []string{"answers", "status"},
	})
	t.Cleanup(srv.Close)
	kc := kubeconfig(t, srv.URL)
	for _, extra := range [][]string{nil, {"-o", "json"}, {"-o", "yaml"}} {
		t.Run(strings.Join(append([]string{"answers"}, extra...), " "), func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append([]string{"pod", "answers", "u-1", "--kubeconfig", kc}, extra...)...)
			if err != nil {
				t.Fatalf("%v, stderr %s", err, errOut)
			}
			if bad := fakeagent.RawControls(out, len(extra) > 0 && extra[1] == "yaml"); len(bad) > 0 {
				t.Errorf("stdout has raw control characters %v:\n%s", bad, out)
			}
			if want := escapedPayload(extra); strings.Count(out, want) < 3 {
				t.Errorf("stdout lacks the pod's, its source's and its event's strings escaped as %q:\n%s", want, out)
			}
		})
	}
	t.Run("status", func(t *testing.T) {
		_, stderr, done := startExit(context.Background(), "pod", "status", "u-1", "--kubeconfig", kc)
		if code := <-done; code != 1 || !strings.Contains(stderr.String(), `answered 500: \x1b]0;pwned\a`) {
			t.Fatalf("exit %d, stderr %q; want 1 and the agent's answer escaped", code, stderr)
		}
		if bad := fakeagent.RawControls(stderr.String(), false); len(bad) > 0 {
			t.Errorf("stderr has raw control characters %v:\n%s", bad, stderr)
		}
	})
}

// TestGoldenVersion prints version of two nodes in each of its formats;
// the client's Go version is the one thing that depends on the build.
func TestGoldenVersion(t *testing.T) {
	kc := twoNodes(t)
	for _, f := range []struct {
		name string
		args []string
	}{{"human", nil}, {"json", []string{"-o", "json"}}, {"yaml", []string{"-o", "yaml"}}} {
		t.Run(f.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append([]string{"version", "node-2", "node-1", "--kubeconfig", kc}, f.args...)...)
			if err != nil {
				t.Fatalf("%v, stderr %s", err, errOut)
			}
			golden.Check(t, "version-"+f.name+".txt", []byte(strings.ReplaceAll(out, runtime.Version(), "GO_VERSION")))
		})
	}
}
