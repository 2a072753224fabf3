package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// TestRelistOnRuntimeEvents sets a relist period far longer than the test:
// with --relist-on-runtime-events the PLEG follows the runtime's container
// events, /pleg says so, and a new sandbox's ContainerStarted reaches an open
// stream because the runtime reported it; without, the agent opens no event
// stream and /pleg says the events are off.
func TestRelistOnRuntimeEvents(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("relist-on-runtime-events=%v", on), func(t *testing.T) {
			ta := startAgent(t, func(c *Config) {
				c.PLEG.RelistPeriod = time.Hour
				c.RelistOnRuntimeEvents = on
			})
			want := pleg.RuntimeEventsOff
			if on {
				want = pleg.RuntimeEventsFollowing
			}
			awaitJSON(t, ta, "/api/v1alpha1/pleg", func(st v1alpha1.PLEGStatus) error {
				if st.Relists == 0 || st.RuntimeEvents != want || (on && ta.runtime.Streams() != 1) {
					return fmt.Errorf("%d relists, runtime events %q, %d event streams open; want the first relist and %q", st.Relists, st.RuntimeEvents, ta.runtime.Streams(), want)
				}
				return nil
			})
			if !on {
				if n := ta.runtime.Streams(); n != 0 {
					t.Fatalf("%d event streams open with the option off", n)
				}
				return
			}
			s := ta.stream(t, "?kind=pleg")
			sb := ta.runtime.RunSandbox("uid-1", "web", "default", "10.1.0.9")
			if m := s.NextOf(t); m.Event == nil || m.Event.Type != "ContainerStarted" || m.Event.Data != sb {
				t.Fatalf("stream got %+v, want the ContainerStarted of sandbox %s", m, sb)
			}
			st := ta.PLEG()
			if st.EventRelists == 0 || st.RuntimeEventsError != "" {
				t.Fatalf("/pleg after an event: runtime events %q (%q), %d relists brought forward", st.RuntimeEvents, st.RuntimeEventsError, st.EventRelists)
			}
		})
	}
}
