package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/test/cluster"
)

// agentPod returns the name and UID of the agent's live pod.
func agentPod(ctx context.Context, c *cluster.Cluster) (string, types.UID, error) {
	pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{LabelSelector: client.AgentSelector})
	if err != nil {
		return "", "", err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			return p.Name, p.UID, nil
		}
	}
	return "", "", fmt.Errorf("no live agent pod")
}

func testWatchAcrossRecreate(t *testing.T, e *env) {
	c := e.c
	ctx := context.Background()
	name, uid, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	mark := e.rec.mark()
	before := servedSince(e, 0)
	if err := c.Client.CoreV1().Pods(client.AgentNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The DaemonSet makes a new pod; the agent in it sees its own pod
	// (api) and the static pods again, and the watcher resumes there.
	e.pollFor(t, "a new agent pod", restartTimeout, func(ctx context.Context) (bool, string, error) {
		n, u, err := agentPod(ctx, c)
		return err == nil && u != uid, n, err
	})
	waitAgentReady(t, c)
	newName, newUID, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	e.waitEvent(t, mark, "the new agent's ADD of its own pod "+newName, configEvent("ADD", v1alpha1.SourceAPI, "", "", string(newUID)))

	// Across the recreation: the new agent's start, marked by a boundary
	// where its journal continues the old agent's numbering in its epoch
	// (never a reset: the DaemonSet's agent keeps a journal) and says the
	// old agent stopped cleanly, then its events from its first on, with
	// no hole that is not reported as a gap.
	msgs := e.rec.since(mark)
	if i := slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool { return m.Type == v1alpha1.MessageReset }); i >= 0 {
		t.Fatalf("a reset after the agent pod was recreated: its journal did not continue the numbering:\n%s", describeMsgs(msgs[:i+1], 20))
	}
	at := slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool {
		return m.Event != nil && m.Event.Kind == v1alpha1.EventKindBoundary
	})
	if at < 0 {
		t.Fatalf("no boundary after the agent pod was recreated:\n%s", describeMsgs(msgs, 20))
	}
	if b := msgs[at]; b.Epoch != msgs[0].Epoch || b.Event.Boundary == nil || b.Event.Boundary.PreviousStop != v1alpha1.StopClean {
		t.Fatalf("the new agent's boundary %s in epoch %s, want the old agent's epoch %s and a clean stop:\n%s", describeMsgs(msgs[at:at+1], 1), b.Epoch, msgs[0].Epoch, describeMsgs(msgs, 20))
	}
	checkSequence(t, msgs[at:])
	checkHistory(t, e, before, *msgs[at].Event, true)
}

// servedSince returns the events the recorder got from mark on, in the
// epoch of its first message: what one agent process served.
func servedSince(e *env, mark int) []v1alpha1.Event {
	var out []v1alpha1.Event
	msgs := e.rec.since(mark)
	for _, m := range msgs {
		if m.Type == v1alpha1.MessageEvent && m.Epoch == msgs[0].Epoch {
			out = append(out, *m.Event)
		}
	}
	return out
}

// testKillAgent kills the agent's process with SIGKILL (through the node's
// containerd) right after a manifest gave it events to write: the kubelet
// starts its container again, and the new process continues the journal's
// epoch with a boundary saying the old one did not stop cleanly and when no
// agent watched. The recorder's stream resumes across it: the numbers the
// killed process may have served and never stored come as a gap, never as
// other events, and every event before the kill keeps its number.
func testKillAgent(t *testing.T, e *env) {
	c := e.c
	ctx := context.Background()
	name, _, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := c.Client.CoreV1().Pods(client.AgentNamespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil || len(pod.Status.ContainerStatuses) != 1 || pod.Status.ContainerStatuses[0].ContainerID == "" {
		t.Fatalf("the agent pod %s: %v, container statuses %+v", name, err, pod.Status.ContainerStatuses)
	}
	before := pod.Status.ContainerStatuses[0]
	id := strings.TrimPrefix(before.ContainerID, "containerd://")

	mark := e.rec.mark()
	c.WriteStaticPod(t, "e2e-kill.yaml", sleepingStaticPod(c, agentTestNS, "kill"))
	e.waitEvent(t, mark, "the ADD of the static pod kill", configEvent("ADD", v1alpha1.SourceFile, agentTestNS, "kill-"+c.NodeName, ""))
	served := servedSince(e, mark)
	kill := exec.Command(c.Env["CTR"], "--address", c.Env["CONTAINERD_SOCKET"], "-n", "k8s.io", "task", "kill", "--signal", "SIGKILL", id)
	if out, err := kill.CombinedOutput(); err != nil {
		t.Fatalf("ctr task kill --signal SIGKILL %s: %v\n%s", id, err, out)
	}
	e.pollFor(t, "the kubelet to start the agent's container again", restartTimeout, func(ctx context.Context) (bool, string, error) {
		p, err := c.Client.CoreV1().Pods(client.AgentNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) != 1 {
			return false, "", err
		}
		cs := p.Status.ContainerStatuses[0]
		return cs.RestartCount > before.RestartCount && cs.Ready, fmt.Sprintf("restarts %d ready %v", cs.RestartCount, cs.Ready), nil
	})
	// The recorder resumed: the new process's boundary, then its events.
	var msgs []v1alpha1.StreamMessage
	at := -1
	e.pollFor(t, "the new process's boundary and an event after it on the stream", restartTimeout, func(context.Context) (bool, string, error) {
		msgs = e.rec.since(mark)
		at = slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool {
			return m.Event != nil && m.Event.Kind == v1alpha1.EventKindBoundary
		})
		return at >= 0 && slices.ContainsFunc(msgs[at+1:], func(m v1alpha1.StreamMessage) bool { return m.Type == v1alpha1.MessageEvent }),
			describeMsgs(msgs, 5), nil
	})
	if i := slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool { return m.Type == v1alpha1.MessageReset }); i >= 0 {
		t.Fatalf("a reset after the kill: the journal did not continue the numbering:\n%s", describeMsgs(msgs[:i+1], 20))
	}
	b := msgs[at]
	if b.Epoch != msgs[0].Epoch || b.Event.Boundary == nil || b.Event.Boundary.PreviousStop != v1alpha1.StopUnclean || b.Event.Boundary.Down == nil {
		t.Fatalf("the new process's boundary %s in epoch %s; want the old epoch %s, an unclean stop and the time no agent watched:\n%s",
			describeMsgs(msgs[at:at+1], 1), b.Epoch, msgs[0].Epoch, describeMsgs(msgs, 20))
	}
	checkSequence(t, msgs)
	checkHistory(t, e, served, *b.Event, false)
}

// testUpgradeAgent upgrades the agent as an operator does: deploy of a
// rebuilt image (another version). The DaemonSet replaces the agent pod;
// the new version's agent continues the old one's journal: its boundary
// stays in the old epoch, names the new version and a clean stop, and
// events --since afterwards returns, event by event, what the old version
// served before the upgrade, with the same numbers.
func testUpgradeAgent(t *testing.T, e *env) {
	c := e.c
	ctx := context.Background()
	_, oldUID, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	mark := e.rec.mark()
	c.WriteStaticPod(t, "e2e-upgrade.yaml", sleepingStaticPod(c, agentTestNS, "upgrade"))
	e.waitEvent(t, mark, "the ADD of the static pod upgrade", configEvent("ADD", v1alpha1.SourceFile, agentTestNS, "upgrade-"+c.NodeName, ""))
	// What the old version served from mark on, before the upgrade.
	before := servedSince(e, mark)

	const upgraded = e2eVersion + "-upgrade"
	image := buildImageAs(t, e.root, upgraded)
	deployImage(t, c, e.plugin, image)
	e.pollFor(t, "the upgraded agent pod", restartTimeout, func(ctx context.Context) (bool, string, error) {
		n, u, err := agentPod(ctx, c)
		return err == nil && u != oldUID, n, err
	})
	waitAgentReady(t, c)

	var msgs []v1alpha1.StreamMessage
	at := -1
	e.pollFor(t, "the upgraded agent's boundary on the stream", restartTimeout, func(context.Context) (bool, string, error) {
		msgs = e.rec.since(mark)
		at = slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool {
			return m.Event != nil && m.Event.Kind == v1alpha1.EventKindBoundary && m.Event.Boundary != nil && m.Event.Boundary.AgentVersion == upgraded
		})
		return at >= 0, describeMsgs(msgs, 5), nil
	})
	if i := slices.IndexFunc(msgs, func(m v1alpha1.StreamMessage) bool { return m.Type == v1alpha1.MessageReset }); i >= 0 {
		t.Fatalf("a reset after the upgrade: the new version's journal did not continue the numbering:\n%s", describeMsgs(msgs[:i+1], 20))
	}
	b := msgs[at]
	if b.Epoch != msgs[0].Epoch || b.Event.Boundary.PreviousStop != v1alpha1.StopClean || b.Event.Boundary.Down == nil {
		t.Fatalf("the upgraded agent's boundary %s in epoch %s; want the old epoch %s, a clean stop and the time no agent watched:\n%s",
			describeMsgs(msgs[at:at+1], 1), b.Epoch, msgs[0].Epoch, describeMsgs(msgs, 20))
	}
	checkSequence(t, msgs)

	checkHistory(t, e, before, *b.Event, true)
}

// checkHistory checks events --since after an agent's restart, event by
// event: each event the old process served (before) is there with its
// number, then the new process's boundary. After a clean stop every one is
// there; after a kill, the newest ones the old process served but had not
// yet written may be missing, and only those.
func checkHistory(t *testing.T, e *env, before []v1alpha1.Event, boundary v1alpha1.Event, clean bool) {
	t.Helper()
	// --all-events: the old process's ContainerChanged events too, which
	// the kubelet never sends and events leaves out by default; and every
	// kind, as the recorder asks for them, inputs included.
	history := pluginEvents(t, e, "--since", "1h", "--all-events", "--kind=config,pleg,input")
	bySeq := map[uint64]v1alpha1.Event{}
	for _, ev := range history {
		bySeq[ev.Seq] = ev
	}
	lost := -1
	for i, want := range before {
		got, ok := bySeq[want.Seq]
		switch {
		case !ok && !clean && lost < 0:
			lost = i
		case !ok && lost < 0:
			t.Errorf("events --since 1h after the restart lacks event %d the old process served: %+v", want.Seq, want)
		case ok && lost >= 0:
			t.Errorf("events --since 1h after the restart lacks event %d but has the later %d: only the newest events of a killed process may be lost", before[lost].Seq, want.Seq)
		case ok && (got.Kind != want.Kind || got.Type != want.Type || got.PodUID != want.PodUID || got.Op != want.Op):
			t.Errorf("events --since 1h after the restart: event %d is %+v, want the old process's %+v", want.Seq, got, want)
		}
	}
	if lost >= 0 {
		t.Logf("events --since 1h after the kill: the old process's newest %d events were not yet written", len(before)-lost)
	}
	if got, ok := bySeq[boundary.Seq]; !ok || got.Kind != v1alpha1.EventKindBoundary {
		t.Errorf("events --since 1h after the restart lacks the new process's boundary %d", boundary.Seq)
	}
}

// checkSequence checks that within each epoch event sequence numbers follow
// one another, or that a gap message announces what is missing.
func checkSequence(t *testing.T, msgs []v1alpha1.StreamMessage) {
	t.Helper()
	var epoch string
	var last uint64
	for i, m := range msgs {
		if m.Epoch != epoch {
			epoch, last = m.Epoch, 0
			if i == 0 && m.Type == v1alpha1.MessageEvent {
				// A check that starts at an event (a boundary) starts there.
				last = m.Event.Seq - 1
			}
		}
		switch m.Type {
		case v1alpha1.MessageReset:
			last = 0
		case v1alpha1.MessageGap:
			if m.From != last+1 {
				t.Errorf("message %d: gap from %d after event %d:\n%s", i, m.From, last, describeMsgs(msgs[:i+1], 10))
			}
			last = m.To
		case v1alpha1.MessageSnapshot:
			last = m.Seq
		case v1alpha1.MessageEvent:
			if m.Event.Seq != last+1 {
				t.Errorf("message %d: event %d follows %d with no gap message:\n%s", i, m.Event.Seq, last, describeMsgs(msgs[:i+1], 10))
			}
			last = m.Event.Seq
		}
	}
}

func testRestarts(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	ctx := context.Background()
	_, oldUID, err := agentPod(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	kubectl := exec.Command(c.Env["KUBECTL"], "--kubeconfig", c.Kubeconfig, "-n", client.AgentNamespace, "rollout", "restart", "daemonset/podsrc-agent")
	if out, err := kubectl.CombinedOutput(); err != nil {
		t.Fatalf("kubectl rollout restart: %v\n%s", err, out)
	}
	e.pollFor(t, "the restarted agent to serve every source seen", restartTimeout, func(ctx context.Context) (bool, string, error) {
		_, u, err := agentPod(ctx, c)
		if err != nil {
			return false, "", err
		}
		l, err := a.Sources(ctx)
		if err != nil {
			return false, "", err
		}
		return u != oldUID && l.AllSourcesSeen, fmt.Sprintf("pod %s allSeen=%v", u, l.AllSourcesSeen), nil
	})
	waitAgentReady(t, c)

	// The kubelet restarting does not touch the agent: it goes on serving,
	// and its pods still equal the kubelet's once it is back.
	c.RestartKubelet(t)
	e.pollFor(t, "podsrc to serve and equal the kubelet's /pods after the kubelet's restart", pollTimeout, func(ctx context.Context) (bool, string, error) {
		kp, ap, err := bothViews(ctx, c, a)
		if err != nil {
			return false, "", err
		}
		return maps.Equal(ap, kp), fmt.Sprintf("kubelet %v podsrc %v", kp, ap), nil
	})
	out, err := e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+c.Kubeconfig)
	if err != nil {
		t.Errorf("kubectl-podsrc sources after the restarts: %v\n%s", err, out)
	}
}

// testContainerdRestart restarts the kubelet's containerd while kubectl
// podsrc watch runs. containerd's restart makes a new socket (a new inode);
// the DaemonSet mounts the socket's directory, not the socket, so the agent
// dials the new one at once: its PLEG is healthy again and a container
// started after the restart shows as ContainerStarted on the stream within
// restartDeadline of containerd being back, without the agent's container
// being restarted.
func testContainerdRestart(t *testing.T, e *env) {
	c := e.c
	a := e.agent(t)
	const name = "e2e-after-containerd"
	pod0 := agentPodStatus(t, e)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := exec.CommandContext(ctx, e.plugin, "watch", c.NodeName, "--kubeconfig", c.Kubeconfig, "--kind=pleg", "-n", agentTestNS, "-o", "json")
	watch.WaitDelay = 5 * time.Second
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatalf("starting kubectl podsrc watch: %v", err)
	}
	started := make(chan time.Time, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m v1alpha1.StreamMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.Event == nil {
				continue
			}
			if ev := m.Event; ev.Kind == v1alpha1.EventKindPLEG && ev.PodName == name && ev.Type == "ContainerStarted" && !ev.Sandbox {
				select {
				case started <- time.Now():
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = watch.Wait()
		if t.Failed() {
			t.Logf("kubectl podsrc watch's stderr:\n%s", stderr.String())
		}
	})

	c.RestartContainerd(t)
	back := time.Now()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: agentTestNS},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers:                    []corev1.Container{{Name: "main", Image: c.TestImage, ImagePullPolicy: corev1.PullNever, Args: []string{"-sleep", "0"}}},
		},
	}
	if _, err := c.Client.CoreV1().Pods(agentTestNS).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s/%s: %v", agentTestNS, name, err)
	}
	t.Cleanup(func() {
		_ = c.Client.CoreV1().Pods(agentTestNS).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	})
	select {
	case at := <-started:
		took := at.Sub(back)
		t.Logf("containerd restart: ContainerStarted of a new pod's container on kubectl podsrc watch %v after containerd was back", took.Round(10*time.Millisecond))
		if took > restartDeadline {
			t.Errorf("ContainerStarted came %v after containerd was back, want within %v", took, restartDeadline)
		}
	case <-time.After(pollTimeout):
		e.agentLogs(t)
		t.Fatalf("no ContainerStarted of %s on kubectl podsrc watch within %v of containerd's restart", name, pollTimeout)
	}
	e.pollFor(t, "the PLEG to be healthy, relisting after containerd's restart", restartDeadline, func(ctx context.Context) (bool, string, error) {
		st, err := a.PLEG(ctx)
		if err != nil {
			return false, "", err
		}
		ok := st.Healthy && st.LastRelist != nil && st.LastRelist.After(back) && st.ConsecutiveFailures == 0
		return ok, fmt.Sprintf("healthy=%v lastRelist=%v failures=%d lastError=%q", st.Healthy, st.LastRelist, st.ConsecutiveFailures, st.LastError), nil
	})
	if pod1 := agentPodStatus(t, e); pod1.uid != pod0.uid || pod1.restarts != pod0.restarts {
		t.Errorf("the agent was restarted to recover (pod %s restarts %d -> pod %s restarts %d); it should follow the socket", pod0.uid, pod0.restarts, pod1.uid, pod1.restarts)
	}
}

// restartDeadline is how soon after the runtime is back the agent must
// report a new container again.
const restartDeadline = 15 * time.Second

// agentPodState is the agent pod of the node and its container's restarts.
type agentPodState struct {
	uid      types.UID
	restarts int32
}

func agentPodStatus(t *testing.T, e *env) agentPodState {
	t.Helper()
	name := waitAgentReady(t, e.c)
	p, err := e.c.Client.CoreV1().Pods(client.AgentNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var restarts int32
	for _, cs := range p.Status.ContainerStatuses {
		restarts += cs.RestartCount
	}
	return agentPodState{uid: p.UID, restarts: restarts}
}
