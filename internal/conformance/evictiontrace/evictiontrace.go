// Package evictiontrace records the admission traces of the kubelet's
// eviction manager: each kubelet minor's recorder (its admission
// package's record_test.go) runs its own eviction manager on the pressure
// a scenario's stats summary shows, and this package writes what the
// kubelet made of it (the Node's conditions and each pod's verdict) as
// the admission traces of testdata/conformance/README.md.
package evictiontrace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"github.com/podsrc/podsrc/internal/conformance"
	"github.com/podsrc/podsrc/internal/conformance/admissiontrace"
	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
)

// The thresholds a recorder gives its eviction manager, which the
// summaries of the scenarios cross: memory.available<100Mi,
// nodefs.available<10%, pid.available<10%.
const (
	MemoryAvailableThreshold = "100Mi"
	NodeFsAvailablePercent   = 0.1
	PIDAvailablePercent      = 0.1
)

// Scenario is one node pressure and the pods added under it.
type Scenario struct {
	Name        string
	Description string
	// Pressure is the condition the summary drives; empty for none.
	Pressure v1.NodeConditionType
	// Pods are added one ADD each, in this order.
	Pods []*v1.Pod
}

// Scenarios are the node pressure cases issue 31 asks for.
func Scenarios() []Scenario {
	burstable := func(p *v1.Pod) {
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceMemory: resource.MustParse("64Mi")}
	}
	tolerates := func(p *v1.Pod) {
		p.Spec.Tolerations = []v1.Toleration{{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
	}
	static := func(p *v1.Pod) {
		p.Annotations[merge.ConfigSourceAnnotation] = "file"
	}
	return []Scenario{
		{Name: "eviction-memory-pressure-besteffort", Description: "memory pressure refuses a BestEffort pod", Pressure: v1.NodeMemoryPressure,
			Pods: []*v1.Pod{pod("besteffort", 1)}},
		{Name: "eviction-memory-pressure-burstable", Description: "memory pressure admits a Burstable pod", Pressure: v1.NodeMemoryPressure,
			Pods: []*v1.Pod{pod("burstable", 1, burstable)}},
		{Name: "eviction-memory-pressure-tolerated", Description: "memory pressure admits a BestEffort pod that tolerates the memory-pressure taint", Pressure: v1.NodeMemoryPressure,
			Pods: []*v1.Pod{pod("tolerant", 1, tolerates)}},
		{Name: "eviction-disk-pressure", Description: "disk pressure refuses a Burstable pod, and a BestEffort pod that tolerates the memory-pressure taint", Pressure: v1.NodeDiskPressure,
			Pods: []*v1.Pod{pod("burstable", 1, burstable), pod("tolerant", 2, tolerates)}},
		{Name: "eviction-pid-pressure", Description: "PID pressure refuses a Burstable pod", Pressure: v1.NodePIDPressure,
			Pods: []*v1.Pod{pod("burstable", 1, burstable)}},
		{Name: "eviction-critical-static-pod", Description: "disk pressure admits a static pod, which is critical, and refuses an API pod", Pressure: v1.NodeDiskPressure,
			Pods: []*v1.Pod{pod("etcd", 1, static), pod("web", 2)}},
		{Name: "eviction-no-pressure", Description: "no pressure admits a BestEffort pod", Pods: []*v1.Pod{pod("besteffort", 1)}},
	}
}

func pod(name string, second int, mutate ...func(*v1.Pod)) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, second, 0, time.UTC)),
			Annotations:       map[string]string{merge.ConfigSourceAnnotation: v1alpha1.SourceAPI},
		},
		Spec: v1.PodSpec{NodeName: "node-a", Containers: []v1.Container{{Name: "app", Image: "registry.example/app:1"}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// Summaries is a fake stats summary provider (the eviction manager's
// SummaryProvider) that shows one pressure, and counts how often the
// manager asked it.
type Summaries struct {
	pressure v1.NodeConditionType
	now      time.Time
	mu       sync.Mutex
	calls    int
	stopped  bool
}

// NewSummaries returns a provider whose summaries show pressure at now.
func NewSummaries(pressure v1.NodeConditionType, now time.Time) *Summaries {
	return &Summaries{pressure: pressure, now: now}
}

// Get returns the summary, or an error once Stop was called.
func (s *Summaries) Get(context.Context, bool) (*statsapi.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("the recorder is done with this eviction manager")
	}
	s.calls++
	return s.summary(), nil
}

// GetCPUAndMemoryStats returns the same summary as Get.
func (s *Summaries) GetCPUAndMemoryStats(ctx context.Context) (*statsapi.Summary, error) {
	return s.Get(ctx, false)
}

// Calls returns how many summaries were handed out.
func (s *Summaries) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Stop makes every later Get fail, so that the manager's loop, which
// cannot be stopped, no longer synchronizes.
func (s *Summaries) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
}

func (s *Summaries) summary() *statsapi.Summary {
	at := metav1.NewTime(s.now)
	u := func(v uint64) *uint64 { return &v }
	memAvailable, fsAvailable, pids := uint64(3<<30), uint64(15<<30), int64(1000)
	switch s.pressure {
	case v1.NodeMemoryPressure:
		memAvailable = 50 << 20
	case v1.NodeDiskPressure:
		fsAvailable = 1 << 30
	case v1.NodePIDPressure:
		pids = 4_100_000
	}
	maxPID := int64(4_194_304)
	return &statsapi.Summary{Node: statsapi.NodeStats{
		NodeName:  "node-a",
		StartTime: at,
		Memory:    &statsapi.MemoryStats{Time: at, AvailableBytes: u(memAvailable), WorkingSetBytes: u(4<<30 - memAvailable)},
		Fs: &statsapi.FsStats{Time: at, AvailableBytes: u(fsAvailable), CapacityBytes: u(20 << 30), UsedBytes: u(20<<30 - fsAvailable),
			InodesFree: u(1 << 20), Inodes: u(2 << 20), InodesUsed: u(1 << 20)},
		Rlimit: &statsapi.RlimitStats{Time: at, MaxPID: &maxPID, NumOfRunningProcesses: &pids},
	}}
}

// Node is the Node the scenarios run on, before the kubelet's pressure
// conditions are set on it.
func Node() *v1.Node {
	list := v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("4Gi"),
		v1.ResourcePods: resource.MustParse("110"), v1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"kubernetes.io/hostname": "node-a", "kubernetes.io/os": "linux"}},
		Status:     v1.NodeStatus{Capacity: list, Allocatable: list.DeepCopy()},
	}
}

// Manager is one kubelet minor's eviction manager, started on a
// scenario's Summaries.
type Manager struct {
	// Under are the manager's IsUnderMemoryPressure, IsUnderDiskPressure
	// and IsUnderPIDPressure, by the condition each answers.
	Under map[v1.NodeConditionType]func() bool
	// Setters are the kubelet's node status setters of those conditions
	// (nodestatus.MemoryPressureCondition, …) on the manager, in the
	// kubelet's order.
	Setters []func(context.Context, *v1.Node) error
	// Admit is the manager's Admit.
	Admit admission.AdmitFunc
}

// Start builds and starts one kubelet minor's eviction manager with the
// thresholds of this package, on summaries, with no active pods, NoGC
// and RootFsOnly.
type Start func(ctx context.Context, summaries *Summaries) (Manager, error)

// Record runs every scenario through start, the eviction manager of
// kubelet version, and writes each as the trace v13N-<scenario>.json,
// handlers ["eviction"]. A trace that exists is checked instead: it must
// be what the kubelet gives now, byte for byte.
func Record(t *testing.T, version string, start Start) {
	t.Helper()
	minor, err := kubeletminor.Parse(version)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			node, admit, err := run(t.Context(), start, sc)
			if err != nil {
				t.Fatalf("running the eviction manager of kubelet %s: %v", version, err)
			}
			tr := admissiontrace.Trace{Kubelet: version, Name: sc.Name, Description: sc.Description, Handlers: []string{v1alpha1.AdmitHandlerEviction}, Node: node}
			for _, p := range sc.Pods {
				ok, reason, message := admit(admission.AdmitAttributes{Node: node, Pod: p})
				tr.Steps = append(tr.Steps, admissiontrace.Step{Pods: []*v1.Pod{p}, Results: []admissiontrace.Result{{
					Pod: p.Namespace + "/" + p.Name, UID: p.UID, Admit: ok, Reason: reason, Message: message,
				}}})
			}
			path := filepath.Join(conformance.Dir(admissiontrace.Sub), fmt.Sprintf("v1%d-%s.json", int(minor), sc.Name))
			if err := writeOrCheck(path, tr); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// run starts an eviction manager on sc's pressure, awaits its
// synchronization, and returns the Node as the kubelet's setters leave it
// and the manager's Admit.
func run(ctx context.Context, start Start, sc Scenario) (*v1.Node, admission.AdmitFunc, error) {
	summaries := NewSummaries(sc.Pressure, Now())
	defer summaries.Stop()
	m, err := start(ctx, summaries)
	if err != nil {
		return nil, nil, err
	}
	// The manager asks for a second summary once its first synchronization
	// has set its conditions.
	synced := func(context.Context) (bool, error) {
		for c, under := range m.Under {
			if under() != (c == sc.Pressure) {
				return false, nil
			}
		}
		return summaries.Calls() >= 2, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 2*time.Minute, true, synced); err != nil {
		return nil, nil, fmt.Errorf("awaiting the eviction manager's %q: %w", sc.Pressure, err)
	}
	node := Node()
	for _, set := range m.Setters {
		if err := set(ctx, node); err != nil {
			return nil, nil, fmt.Errorf("setting the node's pressure conditions: %w", err)
		}
	}
	return node, m.Admit, nil
}

// Now is the time of the summaries and of the clock a recorder gives its
// eviction manager and setters, so that traces are recorded the same
// every time.
func Now() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// NoGC is the image and container garbage collection the eviction manager
// runs to reclaim disk: there is nothing to collect.
type NoGC struct{}

// DeleteUnusedImages deletes nothing.
func (NoGC) DeleteUnusedImages(context.Context) error { return nil }

// DeleteAllUnusedContainers deletes nothing.
func (NoGC) DeleteAllUnusedContainers(context.Context) error { return nil }

// RootFsOnly is a node whose images and containers are on its root
// filesystem (the eviction manager's DiskInfoProvider).
type RootFsOnly struct{}

// HasDedicatedImageFs says no.
func (RootFsOnly) HasDedicatedImageFs(context.Context) (bool, error) { return false, nil }

// HasDedicatedContainerFs says no.
func (RootFsOnly) HasDedicatedContainerFs(context.Context) (bool, error) { return false, nil }

func writeOrCheck(path string, tr admissiontrace.Trace) error {
	data, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding admission trace %s: %w", tr.Name, err)
	}
	data = append(data, '\n')
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		if string(old) != string(data) {
			return fmt.Errorf("kubelet %s gives another trace than %s (delete it to record it anew):\n%s", tr.Kubelet, path, data)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("reading admission trace: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing admission trace: %w", err)
	}
	return nil
}

// AdmitFunc is the eviction manager as the admission recorder's oracle
// (admissiontrace.Kubelet.Handlers) chains it: the Admit of an eviction
// manager that start builds on the pressure the judged pod's Node shows,
// so that the recorder re-runs the eviction traces through the kubelet's
// own manager. One manager is started per pressure, on first use; a Node
// with several pressures, which Summaries cannot show, or a manager that
// does not synchronize, gives a verdict no trace has, which fails the
// recording.
func AdmitFunc(ctx context.Context, start Start) admission.AdmitFunc {
	managers := map[v1.NodeConditionType]admission.AdmitFunc{}
	return func(in admission.AdmitAttributes) (bool, string, string) {
		var pressure v1.NodeConditionType
		switch p := admission.Pressure(in.Node); len(p) {
		case 0:
		case 1:
			pressure = p[0]
		default:
			return false, "Recorder", fmt.Sprintf("the recorder shows one pressure at a time, not %v", p)
		}
		admit, ok := managers[pressure]
		if !ok {
			var err error
			if _, admit, err = run(ctx, start, Scenario{Pressure: pressure}); err != nil {
				return false, "Recorder", err.Error()
			}
			managers[pressure] = admit
		}
		return admit(in)
	}
}

// HandlersFunc builds a kubelet minor's admit handlers by name on its
// callbacks (admissiontrace.Kubelet.Handlers).
type HandlersFunc func(ctx context.Context, allowedUnsafeSysctls []string, k admission.Callbacks) (map[string]admission.AdmitFunc, error)

// WithEviction returns handlers with the minor's eviction manager (AdmitFunc
// of start) beside them, for the admission recorder's oracle.
func WithEviction(handlers HandlersFunc, start Start) HandlersFunc {
	return func(ctx context.Context, allowedUnsafeSysctls []string, k admission.Callbacks) (map[string]admission.AdmitFunc, error) {
		funcs, err := handlers(ctx, allowedUnsafeSysctls, k)
		if err != nil {
			return nil, err
		}
		funcs[v1alpha1.AdmitHandlerEviction] = AdmitFunc(ctx, start)
		return funcs, nil
	}
}
