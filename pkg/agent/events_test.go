package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

// publish puts n config events from source "api" into the agent's sequence.
func (ta *testAgent) publish(n int, namespace string) uint64 {
	return servetest.Publish(ta.ring, n, namespace)
}

// TestSnapshotStartsAtTheRingsLastEvent: the agent's snapshot (its
// serve.State's Snapshot) holds its pods at the last event of its ring, and
// the stream goes on with the next one.
func TestSnapshotStartsAtTheRingsLastEvent(t *testing.T) {
	ta := startAgent(t, nil)
	ta.writeManifest(t, "web.yaml", webManifest)
	ta.staticPod(t, "web-node-1")

	t.Run("snapshot then the events after it", func(t *testing.T) {
		s := ta.stream(t, "?snapshot=true")
		m := s.Next(t)
		if m.Type != v1alpha1.MessageSnapshot || m.Snapshot == nil || len(m.Snapshot.Items) != 1 || m.Snapshot.Items[0].Name != "web-node-1" || m.Seq != ta.ring.LastSeq() {
			t.Fatalf("snapshot: %+v", m)
		}
		last := ta.publish(1, "default")
		if n := s.NextOf(t); n.Event == nil || n.Event.Seq != last || last != m.Seq+1 {
			t.Fatalf("after the snapshot at %d: %+v", m.Seq, n)
		}
	})
}

// TestPLEGEventsOnTheStream follows a container through the PLEG: its
// sandbox started, the container created (ContainerChanged, which the
// kubelet computes but never sends), started, then died with its exit code,
// as events on the stream. Each step waits for its event, so that no relist
// can fall between two steps unexpectedly.
func TestPLEGEventsOnTheStream(t *testing.T) {
	ta := startAgent(t, nil)
	s := ta.stream(t, "?kind=pleg")
	next := func(typ, data string, sends bool) *v1alpha1.Event {
		t.Helper()
		m := s.NextOf(t)
		e := m.Event
		if e == nil || e.Kind != v1alpha1.EventKindPLEG || e.Type != typ || e.Data != data || e.PodUID != "uid-1" || e.PodName != "web" ||
			e.Namespace != "default" || e.KubeletSends == nil || *e.KubeletSends != sends {
			t.Fatalf("got %+v, want %s of %s with kubeletSends %v", m, typ, data, sends)
		}
		return e
	}
	sb := ta.runtime.RunSandbox("uid-1", "web", "default", "10.1.0.9")
	if e := next("ContainerStarted", sb, true); !e.Sandbox {
		t.Fatalf("sandbox event %+v not marked as a sandbox's", e)
	}
	c := ta.runtime.CreateContainer(sb, "app")
	next("ContainerChanged", c, false)
	ta.runtime.StartContainer(c)
	if e := next("ContainerStarted", c, true); e.Sandbox || e.ContainerName != "app" {
		t.Fatalf("container event %+v", e)
	}
	ta.runtime.ExitContainer(c, 7, "Error")
	if e := next("ContainerDied", c, true); e.ContainerName != "app" || e.ExitCode == nil || *e.ExitCode != 7 {
		t.Fatalf("got %+v, want ContainerDied of %s with exit code 7", e, c)
	}
}

// TestPLEGDiscardedEventsStayOffTheStream fails a pod's inspection for a
// few relists: the kubelet discards the events of those relists and
// computes them again, so the stream gets the sandbox's ContainerStarted
// once, from the relist whose inspection succeeded.
func TestPLEGDiscardedEventsStayOffTheStream(t *testing.T) {
	ta := startAgent(t, nil)
	ta.runtime.Fail("PodSandboxStatus", errors.New("runtime busy"))
	sb := ta.runtime.RunSandbox("uid-1", "web", "default", "")
	ta.waitFor(t, "discarded events", func() bool { return ta.plegStats.Stats().EventsDiscarded >= 2 })
	ta.runtime.Fail("PodSandboxStatus", nil)

	// The sandbox's death comes after its start in the PLEG's order, and
	// the agent publishes in that order: once the death is in the event ring,
	// every ContainerStarted of the sandbox the agent would publish is too.
	// The sandbox is the runtime's only container: the one ContainerStarted
	// sent is its.
	ta.waitFor(t, "the sandbox's ContainerStarted to be computed", func() bool {
		return ta.plegStats.Stats().EventsSent[pleg.ContainerStarted] >= 1
	})
	ta.runtime.StopSandbox(sb)
	count := func(typ string) (n int) {
		var b eventring.Batch
		ta.ring.Read(&b, 0, ta.cfg.EventBuffer)
		for _, e := range b.Events {
			if e.Kind == v1alpha1.EventKindPLEG && e.Type == typ && e.Data == sb {
				n++
			}
		}
		return n
	}
	ta.waitFor(t, "the sandbox's ContainerDied", func() bool { return count("ContainerDied") > 0 })
	if n := count("ContainerStarted"); n != 1 {
		t.Fatalf("the sandbox's ContainerStarted was published %d times, want once", n)
	}
}

// TestStreamServesTheConfiguredRing: with Config.Events set, the agent
// publishes its own events into that ring, and its streams carry what else
// is published there (as the benchmarks publish), under the ring's epoch.
func TestStreamServesTheConfiguredRing(t *testing.T) {
	events := eventring.New(100, nil)
	ta := startAgent(t, func(c *Config) { c.Events = events })
	if events.LastSeq() == 0 {
		t.Fatal("the agent's first event is not in the configured ring")
	}
	s := ta.stream(t, fmt.Sprintf("?since=%d", events.LastSeq()))
	seq := events.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", Namespace: "default"})
	for {
		m := s.NextOf(t)
		if m.Event == nil || m.Event.Seq > seq {
			t.Fatalf("want event %d, got %+v", seq, m)
		}
		if m.Event.Seq == seq {
			if m.Epoch != events.Epoch() || m.Event.Type != "ContainerDied" {
				t.Fatalf("event %d: %+v, want a ContainerDied of epoch %s", seq, m, events.Epoch())
			}
			return
		}
	}
}
