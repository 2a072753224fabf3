package pleg

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/internal/conformance"
	"github.com/podsrc/podsrc/pkg/cri"
)

// plegTrace is one recorded kubelet PLEG run (testdata/conformance/README.md).
type plegTrace struct {
	Kubelet     string        `json:"kubelet"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Relists     []traceRelist `json:"relists"`
}

type traceRelist struct {
	Pods         []tracePod    `json:"pods"`
	StatusErrors []string      `json:"statusErrors"`
	Events       []traceEvent  `json:"events"`
	Computed     *[]traceEvent `json:"computed"`
}

type tracePod struct {
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	Namespace  string        `json:"namespace"`
	Sandboxes  []traceObject `json:"sandboxes"`
	Containers []traceObject `json:"containers"`
}

type traceObject struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
}

type traceEvent struct {
	PodID string  `json:"podID"`
	Type  string  `json:"type"`
	Data  *string `json:"data"`
}

// traceSandboxState maps a trace sandbox state to the CRI. The CRI has no
// "created" sandbox; any state that is neither ready nor not ready is
// unknown to the kubelet, and the PLEG folds created and unknown together.
func traceSandboxState(t *testing.T, s string) runtimeapi.PodSandboxState {
	switch s {
	case "running":
		return runtimeapi.PodSandboxState_SANDBOX_READY
	case "exited":
		return runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	case "created", "unknown":
		return runtimeapi.PodSandboxState(99)
	}
	t.Fatalf("unknown sandbox state %q", s)
	return 0
}

func traceContainerState(t *testing.T, s string) runtimeapi.ContainerState {
	switch s {
	case "created":
		return runtimeapi.ContainerState_CONTAINER_CREATED
	case "running":
		return runtimeapi.ContainerState_CONTAINER_RUNNING
	case "exited":
		return runtimeapi.ContainerState_CONTAINER_EXITED
	case "unknown":
		return runtimeapi.ContainerState_CONTAINER_UNKNOWN
	}
	t.Fatalf("unknown container state %q", s)
	return 0
}

// runtimeObjects turns one relist's pods into CRI lists. Creation times
// decrease in trace order, so that the kubelet's newest-first sort keeps the
// order the trace gives.
func runtimeObjects(t *testing.T, pods []tracePod) ([]*runtimeapi.PodSandbox, []*runtimeapi.Container) {
	var sandboxes []*runtimeapi.PodSandbox
	var containers []*runtimeapi.Container
	const newest = 1_000_000
	for _, p := range pods {
		for _, s := range p.Sandboxes {
			sandboxes = append(sandboxes, &runtimeapi.PodSandbox{
				Id:        s.ID,
				Metadata:  &runtimeapi.PodSandboxMetadata{Uid: p.ID, Name: p.Name, Namespace: p.Namespace},
				State:     traceSandboxState(t, s.State),
				CreatedAt: int64(newest - len(sandboxes)),
			})
		}
		for _, c := range p.Containers {
			containers = append(containers, &runtimeapi.Container{
				Id:           c.ID,
				PodSandboxId: firstSandbox(p),
				Metadata:     &runtimeapi.ContainerMetadata{Name: c.Name},
				Image:        &runtimeapi.ImageSpec{Image: "image"},
				ImageRef:     "image-ref",
				State:        traceContainerState(t, c.State),
				CreatedAt:    int64(newest - len(containers)),
				Labels: map[string]string{
					cri.LabelPodUID: p.ID, cri.LabelPodName: p.Name,
					cri.LabelPodNamespace: p.Namespace, cri.LabelContainerName: c.Name,
				},
			})
		}
	}
	return sandboxes, containers
}

func firstSandbox(p tracePod) string {
	if len(p.Sandboxes) > 0 {
		return p.Sandboxes[0].ID
	}
	return ""
}

func toTraceEvent(ev *PodLifecycleEvent) traceEvent {
	te := traceEvent{PodID: string(ev.ID), Type: string(ev.Type)}
	if ev.Type != PodSync {
		d := ev.Data
		te.Data = &d
	}
	return te
}

// byPod orders events by pod, keeping each pod's own order, as the traces do.
func byPod(evs []traceEvent) []traceEvent {
	slices.SortStableFunc(evs, func(a, b traceEvent) int { return strings.Compare(a.PodID, b.PodID) })
	return evs
}

func withoutPodSync(evs []traceEvent) []traceEvent {
	out := []traceEvent{}
	for _, e := range evs {
		if e.Type != string(PodSync) {
			out = append(out, e)
		}
	}
	return out
}

// SemanticsOf chooses the PLEG's semantics of a trace's kubelet version
// (pkg/kubeletsemantics.PLEGOf, which imports this package: the replays
// are started from the external test package, which can reach it).
type SemanticsOf func(kubelet string) (Semantics, error)

// ReplayConformanceTraces replays every PLEG trace with the semantics of
// the kubelet it was recorded from.
func ReplayConformanceTraces(t *testing.T, of SemanticsOf) {
	files := conformance.Files(t, "pleg")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var tr plegTrace
			if err := json.Unmarshal(raw, &tr); err != nil {
				t.Fatalf("decoding %s: %v", file, err)
			}
			for _, mode := range []struct {
				name     string
				scanUpTo int
			}{
				{name: "scan", scanUpTo: 0},
				{name: "maps", scanUpTo: -1},
			} {
				t.Run(mode.name, func(t *testing.T) { replayTrace(t, &tr, of, mode.scanUpTo) })
			}
		})
	}
	t.Logf("replayed %d PLEG conformance traces from %s", len(files), conformance.Dir("pleg"))
}

// replayTrace feeds the trace's runtime states to a PLEG and compares the
// events; scanUpTo selects how events are computed (see eventScratch).
func replayTrace(t *testing.T, tr *plegTrace, of SemanticsOf, scanUpTo int) {
	sem, err := of(tr.Kubelet)
	if err != nil {
		t.Fatalf("trace %s: %v", tr.Name, err)
	}
	rt := newFakeRuntime()
	rec := &recorder{}
	g := New(rt, Options{Semantics: sem, Handler: rec})
	g.scratch.scanUpTo = scanUpTo
	ctx := context.Background()
	var lastSeq uint64
	for i, rl := range tr.Relists {
		sandboxes, containers := runtimeObjects(t, rl.Pods)
		// A status error may name a pod with nothing listed in this relist
		// (it disappeared): the kubelet makes no status call for it, and
		// neither does the fake runtime fail one.
		rt.set(sandboxes, containers, rl.StatusErrors...)
		if err := g.Relist(ctx); err != nil {
			t.Fatalf("relist %d: %v", i, err)
		}

		sent := []traceEvent{}
		for _, ev := range rec.sentAfter(lastSeq) {
			sent = append(sent, toTraceEvent(ev))
		}
		computed := []traceEvent{}
		for _, r := range rec.after(lastSeq) {
			lastSeq = r.Seq
			if r.Type != PodSync {
				computed = append(computed, toTraceEvent(&r.PodLifecycleEvent))
			}
			if r.KubeletSends == (r.Type == ContainerChanged) {
				t.Errorf("relist %d: event %+v: KubeletSends=%v", i, r.PodLifecycleEvent, r.KubeletSends)
			}
		}
		want := rl.Events
		if want == nil {
			want = []traceEvent{}
		}
		if got := byPod(sent); !reflect.DeepEqual(got, want) {
			t.Errorf("relist %d: sent events\n got %s\nwant %s", i, jsonString(got), jsonString(want))
		}
		wantComputed := withoutPodSync(want)
		if rl.Computed != nil {
			wantComputed = *rl.Computed
		}
		if got := byPod(computed); !reflect.DeepEqual(got, wantComputed) {
			t.Errorf("relist %d: computed events\n got %s\nwant %s", i, jsonString(got), jsonString(wantComputed))
		}

		// The cache only has pods the runtime lists.
		for _, cp := range g.Cache().List() {
			if !slices.ContainsFunc(rl.Pods, func(p tracePod) bool { return p.ID == string(cp.ID) }) {
				t.Errorf("relist %d: cache still has pod %s, which is not listed", i, cp.ID)
			}
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
