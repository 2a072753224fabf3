package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/syncbuf"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// run runs kubectl podsrc with args and returns stdout, stderr and the error.
func run(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	common.Now = func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	cmd := newRootCommand(common)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

// startCommand starts kubectl podsrc with args in the background, until it
// ends or ctx does; done receives its error.
func startCommand(ctx context.Context, args ...string) (out, errOut *syncbuf.Buffer, done <-chan error) {
	out, errOut = &syncbuf.Buffer{}, &syncbuf.Buffer{}
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut})
	cmd := newRootCommand(common)
	cmd.SetArgs(args)
	finished := make(chan error, 1)
	go func() { finished <- cmd.ExecuteContext(ctx) }()
	return out, errOut, finished
}

// awaitOutput waits up to 10 seconds for what a command started with
// startCommand printed on stdout to satisfy cond.
func awaitOutput(t *testing.T, out, errOut *syncbuf.Buffer, cond func(stdout string) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(out.String()), nil
	})
	if err != nil {
		t.Fatalf("output so far:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}

// checkOutput checks that out holds every string of want and none of
// notWant.
func checkOutput(t *testing.T, out string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, w := range notWant {
		if strings.Contains(out, w) {
			t.Errorf("output has %q:\n%s", w, out)
		}
	}
}

// newAgent serves a fake agent for node on loopback.
func newAgent(t *testing.T, node string) (*fakeagent.Agent, string) {
	t.Helper()
	fa := fakeagent.New(node)
	fa.Sources.Items = []v1alpha1.Source{{Name: "file", Target: "/etc/kubernetes/manifests", Seen: true, Pods: 1}}
	fa.Pods.Items = []v1alpha1.PodInfo{
		{Name: "etcd", Namespace: "kube-system", UID: "u1", Source: "file", Static: true},
		{Name: "web", Namespace: "default", UID: "u2", Source: "api"},
	}
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	return fa, srv.URL
}

func TestDirectCommands(t *testing.T) {
	_, u := newAgent(t, "node-1")
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{name: "sources", args: []string{"sources"}, want: []string{"NODE", "node-1", "file", "/etc/kubernetes/manifests"}},
		{name: "sources json is a List of Sources", args: []string{"sources", "-o", "json"}, want: []string{`"kind": "List"`, `"kind": "Source"`, `"nodeName": "node-1"`}},
		{name: "pods", args: []string{"pods"}, want: []string{"etcd", "web"}},
		{name: "pods namespace", args: []string{"pods", "-n", "kube-system"}, want: []string{"etcd"}, notWant: []string{"web"}},
		{name: "pods source", args: []string{"pods", "--source", "api", "--no-headers"}, want: []string{"web"}, notWant: []string{"etcd", "NODE"}},
		{name: "pleg", args: []string{"pleg"}, want: []string{"HEALTHY", "true"}},
		{name: "version", args: []string{"version"}, want: []string{"Client Version:", "Agent Version: v0.1.0", "Reproduced Kubelet Version: v1.36.3"}},
		{name: "node name kept", args: []string{"sources", "node-1", "-o", "jsonpath={.items[0].nodeName}"}, want: []string{"node-1"}},
		{name: "request timeout in seconds, as kubectl takes it", args: []string{"pleg", "--request-timeout", "30"}, want: []string{"HEALTHY"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), append(tc.args, "--agent-url", u)...)
			if err != nil {
				t.Fatalf("error %v, stderr %s", err, errOut)
			}
			checkOutput(t, out, tc.want, tc.notWant)
		})
	}
}

func TestClientVersionNeedsNoCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	out, _, err := run(t, context.Background(), "version")
	if err != nil || !strings.HasPrefix(out, "Client Version: ") || strings.Contains(out, "Node") {
		t.Fatalf("version = %q, %v", out, err)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no node", []string{"sources"}, "name at least one node"},
		{"names and selector", []string{"pods", "n1", "--node-selector", "a=b"}, "not both"},
		{"bad via", []string{"pods", "n1", "--via", "carrier-pigeon"}, "--via"},
		{"bad source", []string{"pods", "n1", "--source", "disk"}, "--source"},
		{"bad kind", []string{"watch", "n1", "--kind", "x"}, "--kind"},
		{"bad since", []string{"watch", "n1", "--since", "yesterday"}, "--since"},
		{"bad output", []string{"pods", "n1", "-o", "xml"}, "output format"},
		{"agent-url and all nodes", []string{"pods", "--agent-url", "http://127.0.0.1:1", "--all-nodes"}, "--agent-url"},
		{"bad request timeout", []string{"pods", "--agent-url", "http://127.0.0.1:1", "--request-timeout", "soon"}, "--request-timeout"},
		{"watch streams every node at once", []string{"watch", "n1", "--max-concurrency", "2"}, "unknown flag: --max-concurrency"},
		{"since after until", []string{"events", "n1", "--since=70", "--until=60"}, "--since 70 is after --until 60"},
		{"since after until, as ages", []string{"events", "n1", "--since=5m", "--until=10m"}, "--since 5m is after --until 10m"},
		{"since after until, as times", []string{"watch", "n1", "--since=2026-11-22T11:00:00Z", "--until=2026-11-22T10:00:00Z"}, "is after --until"},
		{"a time in the future", []string{"events", "n1", "--since=2026-11-23T00:00:00Z"}, "--since 2026-11-23T00:00:00Z is in the future"},
		{"not a time", []string{"events", "n1", "--until=yesterday"}, "or an RFC 3339 time"},
		{"idle timeout below two heartbeats", []string{"watch", "n1", "--idle-timeout=6s"}, "--idle-timeout 6s: want at least 10s, twice the agent's heartbeat (5s)"},
		{"completion without a shell", []string{"completion"}, "name one shell: bash, zsh, fish, powershell"},
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

func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	_, _, err := run(t, context.Background(), "sources", "--agent-url", u)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line saying connection refused", err)
	}
}

func TestAgentTooNew(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	fa.Lock()
	fa.Served, fa.Version.ServedVersion = "v1beta1", "v1beta1"
	fa.Unlock()
	_, _, err := run(t, context.Background(), "pods", "--agent-url", u)
	if err == nil || !strings.Contains(err.Error(), "too new") {
		t.Fatalf("error %v, want the agent too new", err)
	}
}

// fakeAPIServer is enough of an API server for the node and pod proxies:
// nodes, the agent's pods, and the proxy subresources.
type fakeAPIServer struct {
	agents    map[string]string // node -> agent URL
	nodes     []string
	forbidden bool
	// kubelet is the kubelet version of every node; v1.35.1 when empty.
	kubelet string
}

// kubeletVersion is the kubelet version the nodes report.
func (f *fakeAPIServer) kubeletVersion() string {
	if f.kubelet == "" {
		return "v1.35.1"
	}
	return f.kubelet
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status := func(code int, reason metav1.StatusReason, msg string, details *metav1.StatusDetails) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: "Failure", Code: int32(code), Reason: reason, Message: msg, Details: details})
	}
	known := func(n string) bool {
		for _, k := range f.nodes {
			if k == n {
				return true
			}
		}
		return false
	}
	proxy := func(node, rest string) {
		target, ok := f.agents[node]
		if !ok {
			status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "error trying to reach service: dial tcp 10.0.0.9:10270: connect: connection refused", nil)
			return
		}
		tu, _ := url.Parse(target)
		rp := httputil.NewSingleHostReverseProxy(tu)
		rp.FlushInterval = -1
		r2 := r.Clone(r.Context())
		r2.URL.Path = rest
		rp.ServeHTTP(w, r2)
	}
	p := r.URL.Path
	if !strings.Contains(p, "/proxy") {
		w.Header().Set("Content-Type", "application/json")
	}
	switch {
	case strings.HasPrefix(p, "/api/v1/nodes/") && strings.Contains(p, "/proxy"):
		name, rest, _ := strings.Cut(strings.TrimPrefix(p, "/api/v1/nodes/"), "/proxy")
		node, _, _ := strings.Cut(name, ":")
		if f.forbidden {
			status(http.StatusForbidden, metav1.StatusReasonForbidden, fmt.Sprintf(`nodes %q is forbidden: User "alice" cannot get resource "nodes/proxy" in API group "" at the cluster scope`, node), nil)
			return
		}
		if !known(node) {
			status(http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("nodes %q not found", node), &metav1.StatusDetails{Name: node, Kind: "nodes"})
			return
		}
		proxy(node, rest)
	case p == "/api/v1/nodes":
		var l corev1.NodeList
		l.APIVersion, l.Kind = "v1", "NodeList"
		for _, n := range f.nodes {
			node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}
			node.Status.NodeInfo.KubeletVersion = f.kubeletVersion()
			l.Items = append(l.Items, node)
		}
		json.NewEncoder(w).Encode(l)
	case strings.HasPrefix(p, "/api/v1/nodes/"):
		n := strings.TrimPrefix(p, "/api/v1/nodes/")
		if !known(n) {
			status(http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("nodes %q not found", n), &metav1.StatusDetails{Name: n, Kind: "nodes"})
			return
		}
		node := corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: n}}
		node.Status.NodeInfo.KubeletVersion = f.kubeletVersion()
		json.NewEncoder(w).Encode(node)
	case p == "/api/v1/namespaces/podsrc-system/pods":
		fs := r.URL.Query().Get("fieldSelector")
		var l corev1.PodList
		l.APIVersion, l.Kind = "v1", "PodList"
		for n := range f.agents {
			if fs == "spec.nodeName="+n {
				l.Items = append(l.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "podsrc-agent-" + n, Namespace: "podsrc-system"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
			}
		}
		json.NewEncoder(w).Encode(l)
	case strings.HasPrefix(p, "/api/v1/namespaces/podsrc-system/pods/"):
		name, rest, _ := strings.Cut(strings.TrimPrefix(p, "/api/v1/namespaces/podsrc-system/pods/"), "/proxy")
		pod, _, _ := strings.Cut(name, ":")
		proxy(strings.TrimPrefix(pod, "podsrc-agent-"), rest)
	default:
		status(http.StatusNotFound, metav1.StatusReasonNotFound, "no "+p, nil)
	}
}

// kubeconfig writes a kubeconfig for server.
func kubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, server)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestThroughProxies(t *testing.T) {
	fa1, u1 := newAgent(t, "node-1")
	_, u2 := newAgent(t, "node-2")
	api := &fakeAPIServer{agents: map[string]string{"node-1": u1, "node-2": u2}, nodes: []string{"node-1", "node-2", "node-3"}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	kc := kubeconfig(t, srv.URL)
	for _, via := range []string{"node-proxy", "pod-proxy"} {
		t.Run(via+"/two nodes", func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), "sources", "node-1", "node-2", "--kubeconfig", kc, "--via", via)
			if err != nil || !strings.Contains(out, "node-1") || !strings.Contains(out, "node-2") {
				t.Fatalf("out %q, stderr %q, err %v", out, errOut, err)
			}
		})
		t.Run(via+"/partial results", func(t *testing.T) {
			out, errOut, err := run(t, context.Background(), "pods", "--all-nodes", "--kubeconfig", kc, "--via", via, "--max-concurrency", "1")
			if !errors.Is(err, errFailed) {
				t.Fatalf("err %v, want the silent non-zero exit", err)
			}
			if !strings.Contains(out, "node-1") || !strings.Contains(out, "node-2") {
				t.Fatalf("partial output lacks the good nodes: %q", out)
			}
			if !strings.Contains(errOut, `error: node "node-3": `) || !strings.Contains(errOut, "kubectl podsrc deploy") {
				t.Fatalf("stderr %q, want node-3's error saying how to deploy the agent", errOut)
			}
		})
	}
	t.Run("node not found", func(t *testing.T) {
		_, _, err := run(t, context.Background(), "pleg", "node-9", "--kubeconfig", kc)
		if err == nil || !strings.Contains(err.Error(), `node "node-9" not found`) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("forbidden names the role", func(t *testing.T) {
		api.forbidden = true
		defer func() { api.forbidden = false }()
		_, _, err := run(t, context.Background(), "pleg", "node-1", "--kubeconfig", kc)
		if err == nil || !strings.Contains(err.Error(), "podsrc-viewer-node-proxy") || !strings.Contains(err.Error(), "--via=pod-proxy") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("version warns on kubelet skew", func(t *testing.T) {
		out, errOut, err := run(t, context.Background(), "version", "node-1", "--kubeconfig", kc)
		if err != nil || !strings.Contains(out, "Kubelet Version: v1.35.1") || !strings.Contains(errOut, "Warning: node node-1 runs kubelet v1.35.1") {
			t.Fatalf("out %q, stderr %q, err %v", out, errOut, err)
		}
	})
	t.Run("watch streams through the node proxy", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, errOut, done := startCommand(ctx, "watch", "node-1", "--kubeconfig", kc, "--snapshot")
		select {
		case <-fa1.StreamStarted():
		case <-time.After(10 * time.Second):
			t.Fatal("no stream")
		}
		// Published after the stream started: only a line-by-line reader
		// sees it before the stream ends.
		fa1.Publish(v1alpha1.Event{Kind: "config", Op: "ADD", Source: "file", Pods: []v1alpha1.PodRef{{Name: "live", Namespace: "ns"}}})
		awaitOutput(t, out, errOut, func(stdout string) bool { return strings.Contains(stdout, "ns/live") })
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestWatchResumesAfterDrop(t *testing.T) {
	fa, u := newAgent(t, "node-1")
	for i := 0; i < 4; i++ {
		fa.Publish(v1alpha1.Event{Kind: "config", Op: "ADD", Source: "file", Pods: []v1alpha1.PodRef{{Name: fmt.Sprintf("p%d", i+1), Namespace: "ns"}}})
	}
	fa.DropNextStreamAfter(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, done := startCommand(ctx, "watch", "--agent-url", u, "--since=0", "-o", "json")
	// Two streams: the dropped one and the resumed one.
	for i := 0; i < 2; i++ {
		select {
		case <-fa.StreamStarted():
		case <-time.After(10 * time.Second):
			t.Fatal("the watch did not reconnect")
		}
	}
	fa.Publish(v1alpha1.Event{Kind: "config", Op: "DELETE", Source: "file", Pods: []v1alpha1.PodRef{{Name: "p1", Namespace: "ns"}}})
	awaitOutput(t, out, errOut, func(stdout string) bool { return strings.Count(stdout, "\n") >= 5 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch: %v", err)
	}
	var seqs []uint64
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			Node  string          `json:"nodeName"`
			Event *v1alpha1.Event `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if m.Node != "node-1" || m.Event == nil {
			t.Fatalf("line %q: want an event of node-1", line)
		}
		seqs = append(seqs, m.Event.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 3 4 5]" {
		t.Fatalf("events %v, want [1 2 3 4 5] each once", seqs)
	}
	if !strings.Contains(errOut.String(), "resuming after event 2") {
		t.Fatalf("stderr %q, want the reconnection reported", errOut.String())
	}
}
