package pleg

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestHealthy(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		// relists are run in order; true means the listing fails.
		relists   []bool
		advance   time.Duration
		wantOK    bool
		wantMsg   string
		wantCause string
	}{
		{name: "before any relist", wantMsg: "pleg has yet to be successful"},
		{name: "only failed relists", relists: []bool{true}, wantMsg: "pleg has yet to be successful", wantCause: "1 consecutive relists failed, last: relist: runtime down"},
		{name: "fresh relist", relists: []bool{false}, advance: time.Minute, wantOK: true},
		{name: "at the threshold", relists: []bool{false}, advance: 3 * time.Minute, wantOK: true},
		{name: "past the threshold", relists: []bool{false}, advance: 3*time.Minute + time.Second, wantMsg: "pleg was last seen active 3m1s ago; threshold is 3m0s"},
		{name: "past the threshold while failing", relists: []bool{false, true, true}, advance: 4 * time.Minute, wantMsg: "pleg was last seen active 4m0s ago; threshold is 3m0s", wantCause: "2 consecutive relists failed"},
		{name: "failing but within the threshold", relists: []bool{false, true}, advance: time.Minute, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(start)
			rt := newFakeRuntime()
			rt.set([]*runtimeapi.PodSandbox{sandboxObj("s1", "p1", 0, 1, runtimeapi.PodSandboxState_SANDBOX_READY)}, nil)
			g := New(rt, Options{Clock: clk})
			for _, fail := range tt.relists {
				rt.mu.Lock()
				rt.listErr = nil
				if fail {
					rt.listErr = errors.New("runtime down")
				}
				rt.mu.Unlock()
				if err := g.Relist(context.Background()); (err != nil) != fail {
					t.Fatalf("Relist() = %v", err)
				}
			}
			clk.Step(tt.advance)
			ok, err := g.Healthy()
			if ok != tt.wantOK {
				t.Fatalf("Healthy() = %v, %v", ok, err)
			}
			if tt.wantOK {
				if err != nil {
					t.Fatalf("healthy with error %v", err)
				}
				return
			}
			if err.Error() != tt.wantMsg {
				t.Fatalf("message %q, want %q", err, tt.wantMsg)
			}
			cause := errors.Unwrap(err)
			switch {
			case tt.wantCause == "" && cause != nil:
				t.Fatalf("unexpected cause %v", cause)
			case tt.wantCause != "" && (cause == nil || !strings.Contains(cause.Error(), tt.wantCause)):
				t.Fatalf("cause %v, want it to contain %q", cause, tt.wantCause)
			}
			if h := g.Health(); h.Healthy || h.Message != tt.wantMsg {
				t.Fatalf("Health() = %+v", h)
			}
		})
	}
}
