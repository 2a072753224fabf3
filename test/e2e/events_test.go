package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// testEventsHistory: kubectl podsrc events, through the API server's
// proxies, prints the history its filters select, as the agent filters it,
// and ends on its own.
func testEventsHistory(t *testing.T, e *env) {
	c := e.c
	ctx := context.Background()
	mark := e.rec.mark()
	pod := apiPod(c, "e2e-events", corev1.RestartPolicyNever, "-sleep", "1s", "-exit", "0")
	// The node's journal keeps the events of earlier runs' pods of this
	// name: the label is this run's alone.
	selector := "app=e2e-events-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	key, value, _ := strings.Cut(selector, "=")
	pod.Labels = map[string]string{key: value}
	p, err := c.Client.CoreV1().Pods(agentTestNS).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.CoreV1().Pods(agentTestNS).Delete(context.Background(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	})
	e.waitEvent(t, mark, "PLEG ContainerDied of e2e-events", func(ev *v1alpha1.Event) bool {
		return ev.Kind == v1alpha1.EventKindPLEG && ev.PodUID == p.UID && ev.Type == "ContainerDied" && !ev.Sandbox
	})

	var outBytes map[string]int
	events := func(t *testing.T, args ...string) []v1alpha1.Event {
		t.Helper()
		got, n := pluginEventsSize(t, e, args...)
		if outBytes != nil {
			outBytes[strings.Join(args, " ")] = n
		}
		return got
	}
	ofPod := func(ev v1alpha1.Event) bool {
		if ev.Kind == v1alpha1.EventKindPLEG {
			return ev.PodUID == p.UID
		}
		return len(ev.Pods) == 1 && ev.Pods[0].UID == p.UID
	}

	t.Run("everything", func(t *testing.T) {
		outBytes = map[string]int{}
		all := events(t)
		byLabel := events(t, "-l", selector)
		// What the agent filters out does not cross the proxy: the
		// plugin prints what it was sent.
		t.Logf("events: %d unfiltered (%d bytes), %d with -l %s (%d bytes)", len(all), outBytes[""], len(byLabel), selector, outBytes["-l "+selector])
		outBytes = nil
		if len(byLabel) == 0 || len(byLabel) >= len(all) {
			t.Errorf("-l %s kept %d of %d events", selector, len(byLabel), len(all))
		}
		for i := 1; i < len(all); i++ {
			if all[i].Seq <= all[i-1].Seq {
				t.Fatalf("event %d after %d", all[i].Seq, all[i-1].Seq)
			}
		}
	})
	for _, via := range []string{"node-proxy", "pod-proxy"} {
		t.Run(via+"/by pod label", func(t *testing.T) {
			got := events(t, "-l", selector, "--via="+via)
			var config, started, died bool
			for _, ev := range got {
				// An agent start over its journal is in every stream, whatever
				// its filters.
				if !ofPod(ev) && ev.Kind != v1alpha1.EventKindBoundary {
					t.Errorf("-l %s printed an event of another pod: %+v", selector, ev)
				}
				config = config || (ev.Kind == v1alpha1.EventKindConfig && ev.Op == v1alpha1.OpAdd)
				started = started || ev.Type == "ContainerStarted"
				died = died || ev.Type == "ContainerDied"
			}
			if !config || !started || !died {
				t.Errorf("-l %s: ADD %v, ContainerStarted %v, ContainerDied %v; want all:\n%+v", selector, config, started, died, got)
			}
		})
	}
	t.Run("every event carries the kubelet's handler", func(t *testing.T) {
		var died bool
		for _, ev := range events(t) {
			if ev.Kind == v1alpha1.EventKindBoundary {
				continue // the agent's own start, no notification of the kubelet's
			}
			if !slices.Contains(v1alpha1.SyncHandlers, ev.Handler) || (ev.Handler == v1alpha1.SyncHandlerIgnored) != (ev.Ignored != "") {
				t.Errorf("event %d (%s%s) has handler %q ignored %q", ev.Seq, ev.Op, ev.Type, ev.Handler, ev.Ignored)
			}
			if ev.Type == "ContainerRemoved" && (ev.Handler != v1alpha1.SyncHandlerIgnored || ev.Ignored != "ContainerRemoved is not sync-worthy") {
				t.Errorf("ContainerRemoved %d not ignored as not sync-worthy: %+v", ev.Seq, ev)
			}
			// The pod is in the kubelet's pod manager, not deleted, and
			// has one exited container, which the kubelet keeps.
			if ofPod(ev) && ev.Type == "ContainerDied" && !ev.Sandbox {
				died = true
				if ev.Handler != v1alpha1.SyncHandlerPodSyncs || len(ev.Removes) > 0 || ev.RemovesUnknown != "" {
					t.Errorf("ContainerDied of e2e-events: %+v, want HandlePodSyncs removing nothing", ev)
				}
			}
		}
		if !died {
			t.Error("no ContainerDied of e2e-events")
		}
		for _, ev := range events(t, "--handler=IGNORED") {
			if ev.Handler != v1alpha1.SyncHandlerIgnored && ev.Kind != v1alpha1.EventKindBoundary {
				t.Errorf("--handler=IGNORED printed event %d with handler %q", ev.Seq, ev.Handler)
			}
		}
	})
	t.Run("type, pod glob and tail", func(t *testing.T) {
		got := events(t, "--type=ContainerDied", "--pod="+agentTestNS+"/e2e-ev*", "--tail=1")
		if len(got) != 1 || !ofPod(got[0]) || got[0].Type != "ContainerDied" {
			t.Errorf("the last ContainerDied of e2e-events: got %+v", got)
		}
	})
	t.Run("a namespace and an excluded op", func(t *testing.T) {
		got := events(t, "-n", agentTestNS, "--kind=config", "--op=!UPDATE", "--op=!RECONCILE")
		if len(got) == 0 {
			t.Fatal("no config event in the test namespace")
		}
		for _, ev := range got {
			if ev.Kind == v1alpha1.EventKindBoundary {
				continue
			}
			if ev.Kind != v1alpha1.EventKindConfig || ev.Op == v1alpha1.OpUpdate || ev.Op == v1alpha1.OpReconcile {
				t.Errorf("event %+v passed --kind=config --op='!UPDATE' --op='!RECONCILE'", ev)
			}
			for _, pr := range ev.Pods {
				if pr.Namespace != agentTestNS {
					t.Errorf("-n %s printed pod %s/%s", agentTestNS, pr.Namespace, pr.Name)
				}
			}
		}
	})
}

// pluginEvents runs kubectl podsrc events on the node with -o json and the
// given flags, and returns the events it printed. It runs under
// callTimeout: a command that did not end by itself fails.
func pluginEvents(t *testing.T, e *env, args ...string) []v1alpha1.Event {
	t.Helper()
	got, _ := pluginEventsSize(t, e, args...)
	return got
}

// pluginEventsSize is pluginEvents, and the size of what it printed.
func pluginEventsSize(t *testing.T, e *env, args ...string) ([]v1alpha1.Event, int) {
	t.Helper()
	args = append([]string{"events", e.c.NodeName, "--kubeconfig=" + e.c.Kubeconfig, "-o", "json"}, args...)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.plugin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	// Its stdout alone is the JSON lines.
	stdout, err := cmd.Output()
	out := string(stdout)
	if err != nil {
		t.Fatalf("kubectl-podsrc %s did not end on its own: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	t.Logf("kubectl-podsrc %s: %d bytes in %s", strings.Join(args, " "), len(out), time.Since(start).Round(time.Millisecond))
	// One List of the stream's messages.
	var l struct {
		Items []struct {
			NodeName string          `json:"nodeName"`
			Event    *v1alpha1.Event `json:"event"`
		} `json:"items"`
	}
	if err := json.Unmarshal(stdout, &l); err != nil {
		t.Fatalf("kubectl-podsrc %s printed no List: %v\n%s", strings.Join(args, " "), err, out)
	}
	var got []v1alpha1.Event
	for _, m := range l.Items {
		if m.Event != nil {
			got = append(got, *m.Event)
		}
	}
	return got, len(out)
}
