package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/test/cluster"
)

// env is what the subtests of TestAgentOnNode share: one deployed agent, one
// plugin binary and one event stream followed from the start.
type env struct {
	c      *cluster.Cluster
	root   string
	plugin string // the kubectl-podsrc binary
	conn   *client.Connector
	rec    *recorder
}

// follow waits for the deployed agent to be ready, then reaches it through
// the node proxy, as kubectl podsrc does by default, and records its stream.
func (e *env) follow(t *testing.T) {
	t.Helper()
	waitAgentReady(t, e.c)
	e.conn = &client.Connector{
		Via: client.ViaNodeProxy, Port: v1alpha1.DefaultAgentPort, Config: e.c.Config, Clientset: e.c.Client,
		Namespace: client.AgentNamespace, Selector: client.AgentSelector, Timeout: callTimeout,
	}
	e.rec = startRecorder(t, e)
}

// pollFor calls cond every pollInterval until it returns true, failing the
// test after timeout with the last state cond described and the agent's log.
// A cond error is a state too (the agent may be restarting), not a failure.
func (e *env) pollFor(t *testing.T, what string, timeout time.Duration, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last string
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		cctx, ccancel := context.WithTimeout(ctx, callTimeout)
		defer ccancel()
		ok, seen, err := cond(cctx)
		if err != nil {
			// An attempt cut short by the poll's own deadline says
			// nothing about the state: keep the one before.
			if ctx.Err() == nil || last == "" {
				last = "error: " + err.Error()
			}
			return false, nil
		}
		last = seen
		return ok, nil
	})
	if err != nil {
		e.agentLogs(t)
		t.Fatalf("waiting %s for %s: %v\nlast seen: %s", timeout, what, err, last)
	}
}

// agentLogs logs the tail of every agent pod's log, for failures.
func (e *env) agentLogs(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	pods, err := e.c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector})
	if err != nil {
		t.Logf("listing agent pods for their logs: %v", err)
		return
	}
	tail := int64(60)
	for _, p := range pods.Items {
		b, err := e.c.Client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
		t.Logf("agent pod %s (phase %s, deleting %v) log tail (err %v):\n%s", p.Name, p.Status.Phase, p.DeletionTimestamp != nil, err, b)
	}
}

// agent returns a client of the node's agent through the node proxy.
func (e *env) agent(t *testing.T) *client.Agent {
	t.Helper()
	a, err := e.conn.Agent(e.c.NodeName)
	if err != nil {
		t.Fatalf("agent client: %v", err)
	}
	return a
}

// runPlugin runs the plugin binary (or kubectl with it on PATH when
// viaKubectl) with args and returns its combined output.
func (e *env) runPlugin(t *testing.T, viaKubectl bool, extraEnv []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if viaKubectl {
		cmd = exec.CommandContext(ctx, e.c.Env["KUBECTL"], append([]string{"podsrc"}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, e.plugin, args...)
	}
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Dir(e.plugin)+":"+os.Getenv("PATH")), extraEnv...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// recorder follows the agent's event stream with client.Watcher, the code
// kubectl podsrc watch runs, from the first event on, across agent restarts.
type recorder struct {
	mu   sync.Mutex
	msgs []v1alpha1.StreamMessage
	// at is when each message was read off the stream.
	at  []time.Time
	err error
	// wake is closed when a message is recorded.
	wake chan struct{}
	done chan struct{}
}

func startRecorder(t *testing.T, e *env) *recorder {
	r := &recorder{done: make(chan struct{}), wake: make(chan struct{})}
	a := e.agent(t)
	w := &client.Watcher{
		Open: a.Events,
		// Every kind, inputs included: a hole in the sequence is a loss.
		Query:          v1alpha1.EventQuery{Since: v1alpha1.SeqMark(0), Kinds: v1alpha1.EventKinds},
		InitialBackoff: 200 * time.Millisecond,
		MaxBackoff:     2 * time.Second,
		MaxAttempts:    -1,
		// Heartbeats come every few seconds; a silent stream is a dead
		// one (the agent pod went away under the proxy).
		IdleTimeout: 20 * time.Second,
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(r.done)
		err := w.Run(ctx, func(m *v1alpha1.StreamMessage) error {
			now := time.Now()
			r.mu.Lock()
			r.msgs = append(r.msgs, *m)
			r.at = append(r.at, now)
			close(r.wake)
			r.wake = make(chan struct{})
			r.mu.Unlock()
			return nil
		})
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// mark is the number of messages recorded so far.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

// since returns the messages recorded from index i on.
func (r *recorder) since(i int) []v1alpha1.StreamMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]v1alpha1.StreamMessage(nil), r.msgs[i:]...)
}

// waitEvent waits for an event after mark matching match and returns it.
func (e *env) waitEvent(t *testing.T, mark int, what string, match func(*v1alpha1.Event) bool) *v1alpha1.Event {
	t.Helper()
	var found *v1alpha1.Event
	e.pollFor(t, "the event stream to carry "+what, pollTimeout, func(context.Context) (bool, string, error) {
		msgs := e.rec.since(mark)
		for i := range msgs {
			if ev := msgs[i].Event; msgs[i].Type == v1alpha1.MessageEvent && ev != nil && match(ev) {
				found = ev
				return true, "", nil
			}
		}
		e.rec.mu.Lock()
		werr := e.rec.err
		e.rec.mu.Unlock()
		return false, fmt.Sprintf("%d messages since the action (watcher error: %v), last ones:\n%s", len(msgs), werr, describeMsgs(msgs, 8)), nil
	})
	return found
}

// describeMsgs renders the last n messages for failure messages.
func describeMsgs(msgs []v1alpha1.StreamMessage, n int) string {
	if len(msgs) > n {
		msgs = msgs[len(msgs)-n:]
	}
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "  %s epoch=%s seq=%d", m.Type, m.Epoch, m.Seq)
		if ev := m.Event; ev != nil {
			fmt.Fprintf(&b, " event seq=%d %s %s%s %s %s/%s exit=%v pods=%v", ev.Seq, ev.Kind, ev.Op, ev.Type, ev.Source, ev.Namespace, ev.PodName, ptrInt(ev.ExitCode), ev.Pods)
		}
		if m.Type == v1alpha1.MessageGap {
			fmt.Fprintf(&b, " from=%d to=%d", m.From, m.To)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func ptrInt(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// configEvent matches config events of op and source naming the pod uid (or,
// with uid empty, the pod namespace/name).
func configEvent(op, source, namespace, name string, uid string) func(*v1alpha1.Event) bool {
	return func(ev *v1alpha1.Event) bool {
		if ev.Kind != v1alpha1.EventKindConfig || ev.Op != op || ev.Source != source {
			return false
		}
		for _, p := range ev.Pods {
			if uid != "" && string(p.UID) == uid {
				return true
			}
			if uid == "" && p.Namespace == namespace && p.Name == name {
				return true
			}
		}
		return false
	}
}

// urlServer is the static pod URL the agent polls: the test binary itself,
// run inside the cluster's network namespace (the agent is hostNetwork
// there, and the root namespace's test cannot be reached from it), serving
// dir/pods.json at /pods, or 500 while dir/fail exists.
type urlServer struct {
	dir string
	url string
}

const urlServerEnv = "PODSRC_E2E_URL_SERVER"

// TestURLServerHelper is not a test: it is the URL server's process when
// urlServerEnv is set (ADDR,DIR), and returns at once otherwise.
func TestURLServerHelper(t *testing.T) {
	spec := os.Getenv(urlServerEnv)
	if spec == "" {
		return
	}
	addr, dir, _ := strings.Cut(spec, ",")
	http.HandleFunc("/pods", func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(filepath.Join(dir, "fail")); err == nil {
			http.Error(w, "e2e: failing on purpose", http.StatusInternalServerError)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, "pods.json"))
	})
	// The parent kills the process when the test ends.
	if err := http.ListenAndServe(addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// startURLServer runs the URL server until the test ends.
func startURLServer(t *testing.T, c *cluster.Cluster) *urlServer {
	t.Helper()
	dir := t.TempDir()
	addr := c.NodeIP + ":10279"
	ctx, cancel := context.WithCancel(context.Background())
	cmd := c.InNetNS(ctx, os.Args[0], "-test.run=^TestURLServerHelper$")
	cmd.Env = append(os.Environ(), urlServerEnv+"="+addr+","+dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting the URL server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	s := &urlServer{dir: dir, url: "http://" + addr + "/pods"}
	s.setFail(t, true)
	// Up once the namespace's side answers (500 while failing).
	pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer pcancel()
	err := wait.PollUntilContextCancel(pctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-exited:
			return false, fmt.Errorf("the URL server exited: %v: %s", err, out.String())
		default:
		}
		probe := c.InNetNS(ctx, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", s.url)
		b, _ := probe.Output()
		return string(b) == "500", nil
	})
	if err != nil {
		t.Fatalf("the URL server at %s did not come up: %v", s.url, err)
	}
	return s
}

func (s *urlServer) setFail(t *testing.T, fail bool) {
	t.Helper()
	p := filepath.Join(s.dir, "fail")
	if fail {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

func (s *urlServer) setPods(t *testing.T, data string) {
	t.Helper()
	tmp := filepath.Join(s.dir, ".pods.json")
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "pods.json")); err != nil {
		t.Fatal(err)
	}
}
