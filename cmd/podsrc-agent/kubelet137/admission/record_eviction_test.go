package admission

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	"k8s.io/kubernetes/pkg/kubelet/nodestatus"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/podsrc/podsrc/internal/conformance/evictiontrace"
)

// TestRecordEvictionTraces is the eviction manager's recorder, run with
// -record: it runs kubelet v1.37's own eviction manager on each
// scenario's pressure and writes the traces that do not exist yet.
func TestRecordEvictionTraces(t *testing.T) {
	if !*recordTraces {
		t.Skip("records traces only with -record")
	}
	evictiontrace.Record(t, KubeletVersion(), startEvictionManager)
}

// startEvictionManager builds v1.37's eviction manager as NewMainKubelet
// does, with evictiontrace's thresholds, and starts it on summaries.
func startEvictionManager(ctx context.Context, summaries *evictiontrace.Summaries) (evictiontrace.Manager, error) {
	clock := testingclock.NewFakeClock(evictiontrace.Now())
	memory := resource.MustParse(evictiontrace.MemoryAvailableThreshold)
	cfg := eviction.Config{PressureTransitionPeriod: 5 * time.Minute, Thresholds: []evictionapi.Threshold{
		{Signal: evictionapi.SignalMemoryAvailable, Operator: evictionapi.OpLessThan, Value: evictionapi.ThresholdValue{Quantity: &memory}},
		{Signal: evictionapi.SignalNodeFsAvailable, Operator: evictionapi.OpLessThan, Value: evictionapi.ThresholdValue{Percentage: evictiontrace.NodeFsAvailablePercent}},
		{Signal: evictionapi.SignalPIDAvailable, Operator: evictionapi.OpLessThan, Value: evictionapi.ThresholdValue{Percentage: evictiontrace.PIDAvailablePercent}},
	}}
	kill := func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil }
	nodeRef := &v1.ObjectReference{Kind: "Node", Name: "node-a", UID: "node-a"}
	m, handler := eviction.NewManager(summaries, cfg, kill, evictiontrace.NoGC{}, evictiontrace.NoGC{}, &record.FakeRecorder{}, nodeRef, clock, false)
	noPods := func() []*v1.Pod { return nil }
	m.Start(ctx, evictiontrace.RootFsOnly{}, noPods, func(*v1.Pod) bool { return true }, 10*time.Millisecond)
	noEvent := func(klog.Logger, string, string) {}
	return evictiontrace.Manager{
		Under: map[v1.NodeConditionType]func() bool{
			v1.NodeMemoryPressure: m.IsUnderMemoryPressure, v1.NodeDiskPressure: m.IsUnderDiskPressure, v1.NodePIDPressure: m.IsUnderPIDPressure,
		},
		Setters: []func(context.Context, *v1.Node) error{
			nodestatus.MemoryPressureCondition(clock.Now, m.IsUnderMemoryPressure, noEvent),
			nodestatus.DiskPressureCondition(clock.Now, m.IsUnderDiskPressure, noEvent),
			nodestatus.PIDPressureCondition(clock.Now, m.IsUnderPIDPressure, noEvent),
		},
		Admit: admitFunc(ctx, handler),
	}, nil
}
