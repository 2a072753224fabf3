package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// TestPLEGEventReachesTheRingDuringTheRelist sets a relist period far longer
// than the test, so that the PLEG relists only at start and when the test
// asks: a sandbox's ContainerStarted is in the event ring as soon as the one relist
// the test triggers returns, and reaches an open stream, with no poll in
// between.
func TestPLEGEventReachesTheRingDuringTheRelist(t *testing.T) {
	ta := startAgent(t, func(c *Config) { c.PLEG.RelistPeriod = time.Hour })
	s := ta.stream(t, "?kind=pleg")
	relists := ta.plegStats.Stats().Relists
	after := ta.ring.LastSeq()

	sb := ta.runtime.RunSandbox("uid-1", "web", "default", "10.1.0.9")
	if err := ta.pleg.Relist(context.Background()); err != nil {
		t.Fatal(err)
	}
	var b eventring.Batch
	ta.ring.Read(&b, after, ta.cfg.EventBuffer)
	// The relist's inputs (what the runtime answered) come first.
	plegEvents := slices.DeleteFunc(b.Events, func(e *v1alpha1.Event) bool { return e.Kind == v1alpha1.EventKindInput })
	if len(plegEvents) != 1 || plegEvents[0].Kind != v1alpha1.EventKindPLEG || plegEvents[0].Type != "ContainerStarted" || plegEvents[0].Data != sb {
		t.Fatalf("event ring after the relist: %+v, want the ContainerStarted of sandbox %s", plegEvents, sb)
	}
	m := s.NextOf(t)
	if m.Event == nil || m.Event.Seq != plegEvents[0].Seq || m.Event.Data != sb {
		t.Fatalf("stream got %+v, want event %d", m, plegEvents[0].Seq)
	}
	if n := ta.plegStats.Stats().Relists; n != relists+1 {
		t.Fatalf("%d relists since the stream opened, want the one the test made", n-relists)
	}
}
