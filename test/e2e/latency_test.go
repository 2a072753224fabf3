package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/test/cluster"
	"github.com/podsrc/podsrc/test/cri"
)

// Settings of TestLatencyBench, from the environment (hack/bench-latency.sh).
const (
	// benchLatencyEnv set to 1 runs the benchmark; it is skipped otherwise.
	benchLatencyEnv = "PODSRC_BENCH_LATENCY"
	// benchImageEnv names an agent image the node's containerd has, to
	// deploy instead of building this tree's (to measure another build).
	benchImageEnv = "PODSRC_BENCH_IMAGE"
	// benchExitsEnv and benchWritesEnv are the sample counts.
	benchExitsEnv  = "PODSRC_BENCH_EXITS"
	benchWritesEnv = "PODSRC_BENCH_WRITES"
	// benchAgentArgsEnv holds flags (space-separated) added to the
	// deployed agent's, e.g. to measure the agent with an option off.
	benchAgentArgsEnv = "PODSRC_BENCH_AGENT_ARGS"

	benchLatencyNS = "podsrc-bench-latency"
	// exitPace separates the creations of the pods whose exits are
	// measured; it is no divisor of the relist period.
	exitPace = 370 * time.Millisecond
	// writePause separates a manifest's write from the previous line.
	writePause = 50 * time.Millisecond
	// benchWaitTimeout bounds the wait for one part's events.
	benchWaitTimeout = 5 * time.Minute
)

// Goals of issue 16: a container's death is on the stream within the relist
// period plus exitSlack at p99, a static manifest's ADD within writeGoal.
const (
	exitSlack = 50 * time.Millisecond
	writeGoal = 15 * time.Millisecond
)

// TestLatencyBench deploys the agent on the real node (with its default
// relist period) and measures, on the event stream read through the API
// server's node proxy with client.Watcher (what kubectl podsrc watch runs):
//   - from a container's exit, as containerd's finishedAt for it, to its
//     ContainerDied line, for pods whose only container sleeps, then exits,
//     also cut where containerd reported the exit (its CRI container event)
//     and at the start of the relist that saw it;
//   - from the rename that puts a static pod manifest in the kubelet's
//     directory to its ADD line. The manifests' node selector matches no
//     node, so the kubelet rejects the pods at admission and runs nothing;
//     each manifest is removed again once its ADD arrived. That path is
//     also cut where the agent published the ADD on its event ring.
//
// It prints p50, p99 and max against the goals; it asserts no figure.
func TestLatencyBench(t *testing.T) {
	if os.Getenv(benchLatencyEnv) != "1" {
		t.Skip("a benchmark: hack/bench-latency.sh runs it with " + benchLatencyEnv + "=1")
	}
	exits, writes := envCount(t, benchExitsEnv, 40), envCount(t, benchWritesEnv, 100)
	loadBefore := loadAverage()
	c := cluster.Get(t)
	root := repoRoot(t)
	e := &env{c: c, root: root}
	e.plugin = buildPlugin(t, root)
	image := os.Getenv(benchImageEnv)
	if image != "" {
		deployImage(t, c, e.plugin, image)
	} else {
		image = deploy(t, c, root, e.plugin)
	}
	if args := strings.Fields(os.Getenv(benchAgentArgsEnv)); len(args) > 0 {
		addAgentArgs(t, c, args)
	}
	e.follow(t)
	createNamespace(t, c, benchLatencyNS)

	exitLat := measureExits(t, e, exits)
	writeLat := measureWrites(t, e, writes)

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	st, err := e.agent(t).PLEG(ctx)
	if err != nil {
		t.Fatalf("reading the agent's PLEG status: %v", err)
	}
	period := pleg.DefaultRelistPeriod
	fmt.Printf("\nagent %s on %s (extra flags %q); relist period %v\n", image, c.NodeName, os.Getenv(benchAgentArgsEnv), period)
	fmt.Printf("agent's relists: %d, interval p50 %.0f ms p99 %.0f ms; duration p50 %.1f ms p99 %.1f ms max %.1f ms\n",
		st.Relists, st.RelistInterval.P50*1000, st.RelistInterval.P99*1000,
		st.RelistDuration.P50*1000, st.RelistDuration.P99*1000, st.RelistDuration.Max*1000)
	fmt.Printf("load average before and after: %s, %s\n", loadBefore, loadAverage())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "path\tsamples\tp50\tp99\tmax\tgoal p99\tmet\t")
	printRow(tw, "container exit -> ContainerDied line", exitLat.total, period+exitSlack)
	printRow(tw, "  exit -> runtime reports it", exitLat.toRuntime, 0)
	printRow(tw, "  runtime reports it -> line read", exitLat.fromRuntime, 0)
	printRow(tw, "  runtime reports it -> its relist starts", exitLat.runtimeToRelist, 0)
	printRow(tw, "  relist start -> line read", exitLat.fromEvent, 0)
	printRow(tw, "static manifest write -> ADD line", writeLat.total, writeGoal)
	printRow(tw, "  write -> ADD on the ring", writeLat.toEvent, 0)
	printRow(tw, "  ring -> line read", writeLat.fromEvent, 0)
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// envCount reads a positive count from the environment, or gives def.
func envCount(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, v)
	}
	return n
}

// exitSplit is the exit path's latencies: whole, cut at the start of the
// relist that computed the event, and cut where the runtime reported the
// exit (containerd's CONTAINER_STOPPED event, sent once its status says
// exited, which is after it deleted the task).
type exitSplit struct {
	split
	toRuntime, fromRuntime, runtimeToRelist []time.Duration
}

// measureExits runs n pods whose container sleeps, then exits, and returns,
// for each, the time from the container's exit to its ContainerDied line.
func measureExits(t *testing.T, e *env, n int) exitSplit {
	t.Helper()
	c := e.c
	ctx, cancel := context.WithTimeout(context.Background(), benchWaitTimeout)
	defer cancel()
	rt, err := cri.Dial(ctx, c.CRIEndpoint)
	if err != nil {
		t.Fatalf("dialing the node's containerd: %v", err)
	}
	defer rt.Close()
	events, _, err := rt.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// stopped is when containerd made each container's stop event.
	var mu sync.Mutex
	stopped := map[string]time.Time{}
	go func() {
		for ev := range events {
			if ev.ContainerEventType == runtimeapi.ContainerEventType_CONTAINER_STOPPED_EVENT {
				mu.Lock()
				if _, ok := stopped[ev.ContainerId]; !ok {
					stopped[ev.ContainerId] = time.Unix(0, ev.CreatedAt)
				}
				mu.Unlock()
			}
		}
	}()

	mark := e.rec.mark()
	pods := map[string]bool{}
	for i := range n {
		// One pod starts, and one exits, every exitPace: a steady load,
		// with the exits at every phase of the relist period.
		if i > 0 {
			time.Sleep(exitPace)
		}
		p := apiPod(c, fmt.Sprintf("bench-exit-%d", i), corev1.RestartPolicyNever, "-sleep", "5s", "-exit", "0")
		p.Namespace = benchLatencyNS
		created, err := c.Client.CoreV1().Pods(benchLatencyNS).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating pod %s/%s: %v", benchLatencyNS, p.Name, err)
		}
		pods[string(created.UID)] = true
	}
	died := awaitEvents(t, e.rec, mark, n, "the ContainerDied of every bench-exit pod", func(ev *v1alpha1.Event) string {
		if ev.Kind == v1alpha1.EventKindPLEG && ev.Type == string(pleg.ContainerDied) && !ev.Sandbox && pods[string(ev.PodUID)] {
			return ev.Data
		}
		return ""
	})
	var out exitSplit
	for id, seen := range died {
		st, err := rt.ContainerStatus(ctx, id)
		if err != nil {
			t.Fatalf("reading the status of container %s: %v", id, err)
		}
		if st.FinishedAt == 0 {
			t.Fatalf("container %s has no finishedAt, yet its ContainerDied is on the stream", id)
		}
		exited := time.Unix(0, st.FinishedAt)
		out.add(exited, seen)
		mu.Lock()
		reported, ok := stopped[id]
		mu.Unlock()
		if ok {
			out.toRuntime = append(out.toRuntime, reported.Sub(exited))
			out.fromRuntime = append(out.fromRuntime, seen.at.Sub(reported))
			out.runtimeToRelist = append(out.runtimeToRelist, seen.ev.Time.Sub(reported))
		}
	}
	return out
}

// measureWrites puts n static pod manifests in the kubelet's directory one
// after the other and returns, for each, the time from its rename to its ADD
// line; each is removed once its REMOVE is on the stream too.
func measureWrites(t *testing.T, e *env, n int) split {
	t.Helper()
	c := e.c
	var out split
	for i := range n {
		name := fmt.Sprintf("bench-write-%d", i)
		podName := name + "-" + c.NodeName
		manifest := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
spec:
  nodeSelector: {podsrc-bench: no-such-node}
  containers:
    - name: main
      image: %s
      imagePullPolicy: Never
`, name, benchLatencyNS, c.TestImage)
		tmp := filepath.Join(filepath.Dir(c.StaticPodDir), "."+name+".tmp")
		dst := filepath.Join(c.StaticPodDir, name+".yaml")
		if err := os.WriteFile(tmp, []byte(manifest), 0o644); err != nil {
			t.Fatalf("writing static pod %s: %v", tmp, err)
		}
		t.Cleanup(func() { os.Remove(tmp); os.Remove(dst) })
		// Each write is measured alone: a stream that just sent a line
		// waits up to 10 ms to batch the next ones (streamCoalesce), so
		// the writes are paced past that.
		time.Sleep(writePause)
		mark := e.rec.mark()
		start := time.Now()
		if err := os.Rename(tmp, dst); err != nil {
			t.Fatalf("writing static pod %s: %v", dst, err)
		}
		added := awaitEvents(t, e.rec, mark, 1, "the ADD of "+podName, func(ev *v1alpha1.Event) string {
			if configEvent("ADD", v1alpha1.SourceFile, benchLatencyNS, podName, "")(ev) {
				return podName
			}
			return ""
		})
		out.add(start, added[podName])
		mark = e.rec.mark()
		if err := os.Remove(dst); err != nil {
			t.Fatalf("removing static pod %s: %v", dst, err)
		}
		awaitEvents(t, e.rec, mark, 1, "the REMOVE of "+podName, func(ev *v1alpha1.Event) string {
			if configEvent("REMOVE", v1alpha1.SourceFile, benchLatencyNS, podName, "")(ev) {
				return podName
			}
			return ""
		})
	}
	return out
}

// seenEvent is an event and when its line was read off the stream.
type seenEvent struct {
	ev *v1alpha1.Event
	at time.Time
}

// awaitEvents waits until the recorder has, after mark, events for n
// distinct keys (key returns "" for an event of no interest), and returns
// each key's first event.
func awaitEvents(t *testing.T, r *recorder, mark, n int, what string, key func(*v1alpha1.Event) string) map[string]seenEvent {
	t.Helper()
	deadline := time.NewTimer(benchWaitTimeout)
	defer deadline.Stop()
	seen := map[string]seenEvent{}
	next := mark
	for {
		r.mu.Lock()
		for ; next < len(r.msgs); next++ {
			ev := r.msgs[next].Event
			if r.msgs[next].Type != v1alpha1.MessageEvent || ev == nil {
				continue
			}
			if k := key(ev); k != "" {
				if _, ok := seen[k]; !ok {
					seen[k] = seenEvent{ev: ev, at: r.at[next]}
				}
			}
		}
		wake, werr := r.wake, r.err
		r.mu.Unlock()
		if len(seen) >= n {
			return seen
		}
		select {
		case <-wake:
		case <-deadline.C:
			t.Fatalf("waiting %v for %s: %d of %d seen (watcher error: %v), last messages:\n%s",
				benchWaitTimeout, what, len(seen), n, werr, describeMsgs(r.since(mark), 8))
		}
	}
}

// split is one path's latencies, whole and cut in two at the event's time:
// the start of the relist that computed a PLEG event, the publication of a
// config event on the agent's event ring. The agent runs on this machine:
// one clock.
type split struct{ total, toEvent, fromEvent []time.Duration }

func (s *split) add(start time.Time, e seenEvent) {
	s.total = append(s.total, e.at.Sub(start))
	s.toEvent = append(s.toEvent, e.ev.Time.Sub(start))
	s.fromEvent = append(s.fromEvent, e.at.Sub(e.ev.Time.Time))
}

// loadAverage is the machine's 1-minute load average, as /proc has it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// printRow prints one path's p50, p99 and max against its p99 goal, if any.
func printRow(tw *tabwriter.Writer, path string, d []time.Duration, goal time.Duration) {
	slices.Sort(d)
	p99 := quantile(d, 0.99)
	goalText, met := "-", "-"
	if goal > 0 {
		goalText, met = ms(goal), "yes"
		if p99 > goal {
			met = "NO"
		}
	}
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", path, len(d), ms(quantile(d, 0.5)), ms(p99), ms(d[len(d)-1]), goalText, met)
}

// quantile returns the nearest-rank q-quantile of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// addAgentArgs adds args to the agent container of every podsrc DaemonSet
// and waits until the node runs a Ready agent pod of the new template.
func addAgentArgs(t *testing.T, c *cluster.Cluster, args []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	dss := c.Client.AppsV1().DaemonSets(client.AgentNamespace)
	list, err := dss.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing the agent's DaemonSets: %v", err)
	}
	for i := range list.Items {
		ds := &list.Items[i]
		ds.Spec.Template.Spec.Containers[0].Args = append(ds.Spec.Template.Spec.Containers[0].Args, args...)
		if _, err := dss.Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("adding %q to DaemonSet %s/%s: %v", args, ds.Namespace, ds.Name, err)
		}
	}
	poll(t, "the agent pod with "+strings.Join(args, " "), func(ctx context.Context) (bool, error) {
		pods, err := c.Client.CoreV1().Pods(client.AgentNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: client.AgentSelector,
			FieldSelector: "spec.nodeName=" + c.NodeName,
		})
		if err != nil {
			return false, err
		}
		ready := false
		for _, p := range pods.Items {
			if !slices.Equal(p.Spec.Containers[0].Args[max(len(p.Spec.Containers[0].Args)-len(args), 0):], args) {
				return false, nil // an old agent is still there
			}
			for _, cond := range p.Status.Conditions {
				ready = ready || (p.DeletionTimestamp == nil && cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue)
			}
		}
		return ready, nil
	})
}
