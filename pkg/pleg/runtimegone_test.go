package pleg

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/podsrc/podsrc/pkg/cri/critest"
)

// TestRuntimeGone takes the runtime away in the ways a node sees it go (no
// socket yet, socket removed, runtime answering Unavailable while it
// restarts, a call that never returns) and checks that the PLEG keeps
// retrying with a growing backoff, reports the runtime as failing with the
// cause, and recovers by itself with exactly the events the kubelet would
// emit: none while the runtime is away, the first relist's ContainerStarted
// events when it never saw the runtime, and nothing when nothing changed.
func TestRuntimeGone(t *testing.T) {
	tests := []struct {
		name string
		// neverUp: the runtime is away before the PLEG's first relist.
		neverUp bool
		// breakIt takes the runtime away, fix brings it back.
		breakIt, fix func(*critest.Server) error
		// wantCause is part of the error of the failing relists.
		wantCause string
	}{
		{
			name:      "socket missing at start",
			neverUp:   true,
			breakIt:   func(*critest.Server) error { return nil },
			fix:       (*critest.Server).Start,
			wantCause: "no such file or directory",
		},
		{
			name:      "socket removed",
			breakIt:   func(s *critest.Server) error { s.Stop(); return nil },
			fix:       (*critest.Server).Start,
			wantCause: "no such file or directory",
		},
		{
			name: "runtime restarting",
			breakIt: func(s *critest.Server) error {
				s.Fail(critest.MethodListPodSandbox, status.Error(codes.Unavailable, "server is not initialized yet"))
				return nil
			},
			fix:       func(s *critest.Server) error { s.Fail(critest.MethodListPodSandbox, nil); return nil },
			wantCause: "server is not initialized yet",
		},
		{
			name:      "hanging call",
			breakIt:   func(s *critest.Server) error { s.Hang(critest.MethodListContainers, true); return nil },
			fix:       func(s *critest.Server) error { s.Hang(critest.MethodListContainers, false); return nil },
			wantCause: "listing containers: no answer within " + testCallTimeout.String(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := critest.NewForTest(t)
			sb := srv.RunSandbox("uid-1", "web", "default", "10.0.0.7")
			c := srv.CreateContainer(sb, "app")
			srv.StartContainer(c)
			if !tt.neverUp {
				if err := srv.Start(); err != nil {
					t.Fatal(err)
				}
			}

			rec := &recorder{}
			g := New(dialCRI(t, srv, testCallTimeout), Options{RelistPeriod: 20 * time.Millisecond, MaxBackoff: 160 * time.Millisecond, Handler: rec, Observer: &measures{}})
			f := &criFixture{srv: srv, g: g, rec: rec}
			runUntilCleanup(t, g)
			readConcurrently(t, g)

			if !tt.neverUp {
				f.expectEvents(t, started("uid-1", c), started("uid-1", sb))
			}
			if err := tt.breakIt(srv); err != nil {
				t.Fatal(err)
			}
			await(t, "3 consecutive failed relists", func() bool { return g.Health().ConsecutiveFailures >= 3 })
			h := g.Health()
			if h.RuntimeOK || !strings.Contains(h.LastError, tt.wantCause) {
				t.Fatalf("health while the runtime is away: %+v; want the cause %q", h, tt.wantCause)
			}
			ok, err := g.Healthy()
			var he *HealthError
			switch {
			case tt.neverUp:
				if ok || !errors.As(err, &he) || he.Message != "pleg has yet to be successful" ||
					he.Cause == nil || !strings.Contains(he.Cause.Error(), tt.wantCause) {
					t.Fatalf("Healthy() = %v, %v (cause %v)", ok, err, errors.Unwrap(err))
				}
			case !ok:
				t.Fatalf("the kubelet stays healthy until the threshold; got %v", err)
			}
			checkBackoff(t, g)
			if evs := rec.after(f.seen); len(evs) != 0 {
				t.Fatalf("events while the runtime is away: %s", jsonString(evs))
			}

			if err := tt.fix(srv); err != nil {
				t.Fatal(err)
			}
			if tt.neverUp {
				// The kubelet's first relist reports what runs.
				f.expectEvents(t, started("uid-1", c), started("uid-1", sb))
			}
			await(t, "recovery", func() bool { h := g.Health(); return h.RuntimeOK && h.Healthy })
			f.expectQuiet(t)
			if cp, _ := g.Cache().Get("uid-1"); cp.Status == nil || len(cp.Status.Containers) != 1 || cp.Status.Containers[0].ID != c {
				t.Fatalf("cache after recovery: %s", jsonString(cp))
			}
		})
	}
}

// checkBackoff checks the pauses between the trailing run of failed relists
// in the history: the pause after the k-th consecutive failure is at least
// retryDelay(k).
func checkBackoff(t *testing.T, g *GenericPLEG) {
	t.Helper()
	recs := measuredBy(t, g).History
	_, consecutiveFailures := g.failures.last()
	first := len(recs)
	for first > 0 && recs[first-1].Error != "" {
		first--
	}
	failed := recs[first:]
	if len(failed) < 3 {
		t.Fatalf("want at least 3 consecutive failed relists, have %s", jsonString(recs))
	}
	o := g.opts
	// The first failure of the run may be older than the history.
	k0 := 1
	if first == 0 {
		k0 = consecutiveFailures - len(failed) + 1
	}
	const slack = 5 * time.Millisecond
	for i := 0; i+1 < len(failed); i++ {
		end := failed[i].Start.Add(time.Duration(failed[i].DurationSeconds * float64(time.Second)))
		pause := failed[i+1].Start.Sub(end)
		want := retryDelay(o, k0+i)
		if pause < want-slack {
			t.Errorf("pause after failure %d: %v, want at least %v", k0+i, pause, want)
		}
	}
}
