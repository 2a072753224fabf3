package merge

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/podsrc/podsrc/internal/conformance"
)

// mergeTrace is one recorded run of the kubelet's pod config (see
// testdata/conformance/README.md).
type mergeTrace struct {
	Kubelet string      `json:"kubelet"`
	Name    string      `json:"name"`
	Mode    string      `json:"mode"`
	Sources []string    `json:"sources"`
	Steps   []traceStep `json:"steps"`
}

type traceStep struct {
	Source         string        `json:"source"`
	Op             string        `json:"op"`
	Pods           []*v1.Pod     `json:"pods"`
	Emitted        []traceUpdate `json:"emitted"`
	Events         []string      `json:"events"`
	SeenSources    []string      `json:"seenSources"`
	SeenAllSources bool          `json:"seenAllSources"`
}

type traceUpdate struct {
	Op     string    `json:"op"`
	Source string    `json:"source"`
	Pods   []*v1.Pod `json:"pods"`
}

// seenPlaceholder stands for the wall-clock config.seen value in traces.
const seenPlaceholder = "<seen>"

// SemanticsOf chooses the merge's semantics of a trace's kubelet version
// (pkg/kubeletsemantics.MergeOf, which imports this package: the replays
// are started from the external test package, which can reach it).
type SemanticsOf func(kubelet string) (Semantics, error)

// ReplayConformanceTraces replays every merge trace with the semantics of
// the kubelet it was recorded from.
func ReplayConformanceTraces(t *testing.T, of SemanticsOf) {
	files := conformance.Files(t, "merge")
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			replay(t, loadTrace(t, file), of)
		})
	}
	t.Logf("replayed %d merge traces from %s", len(files), conformance.Dir("merge"))
}

func loadTrace(t *testing.T, file string) mergeTrace {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr mergeTrace
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	return tr
}

func semanticsOf(t *testing.T, of SemanticsOf, kubelet string) Semantics {
	t.Helper()
	s, err := of(kubelet)
	if err != nil {
		t.Fatalf("trace recorded from kubelet %q: %v", kubelet, err)
	}
	return s
}

// replay feeds every step of a trace to a fresh PodConfig and compares what
// it emits, records and reports with what the kubelet did.
func replay(t *testing.T, tr mergeTrace, of SemanticsOf) {
	mode, err := ParseMode(tr.Mode)
	if err != nil {
		t.Fatal(err)
	}
	recorder := record.NewFakeRecorder(100)
	cfg := New(Options{
		Mode:          mode,
		Semantics:     semanticsOf(t, of, tr.Kubelet),
		EventRecorder: recorder,
		Clock:         clocktesting.NewFakePassiveClock(time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, s := range tr.Sources {
		cfg.Channel(ctx, s)
	}

	for i, step := range tr.Steps {
		op, ok := parseOp(step.Op)
		if !ok {
			t.Fatalf("step %d: unknown op %q", i, step.Op)
		}
		if err := cfg.store.merge(ctx, step.Source, PodUpdate{Op: op, Source: step.Source, Pods: step.Pods}); err != nil {
			t.Fatalf("step %d: merge: %v", i, err)
		}

		got := drain(cfg.Updates())
		if len(got) != len(step.Emitted) {
			t.Fatalf("step %d (%s %s): emitted %s, kubelet emitted %s", i, step.Source, step.Op, describe(got), describeTrace(step.Emitted))
		}
		for j, want := range step.Emitted {
			g := got[j]
			if g.Op.String() != want.Op || g.Source != want.Source {
				t.Fatalf("step %d update %d: got %s from %s, kubelet sent %s from %s", i, j, g.Op, g.Source, want.Op, want.Source)
			}
			pods := normalize(g.Pods)
			sortPods(want.Pods)
			if len(want.Pods) == 0 && len(pods) == 0 {
				continue
			}
			if diff := cmp.Diff(want.Pods, pods); diff != "" {
				t.Fatalf("step %d update %d (%s): pods differ from the kubelet's (-kubelet +podsrc):\n%s", i, j, want.Op, diff)
			}
		}

		events := drainEvents(recorder.Events)
		if !slices.Equal(events, step.Events) {
			t.Fatalf("step %d: events %q, kubelet recorded %q", i, events, step.Events)
		}
		if seen := cfg.seenSources(); !slices.Equal(seen, step.SeenSources) {
			t.Fatalf("step %d: seen sources %v, kubelet %v", i, seen, step.SeenSources)
		}
		if all := cfg.seenAllSources(sets.New(tr.Sources...)); all != step.SeenAllSources {
			t.Fatalf("step %d: SeenAllSources %v, kubelet %v", i, all, step.SeenAllSources)
		}
	}
}

func parseOp(s string) (Op, bool) {
	for _, op := range []Op{Set, Add, Update, Delete, Remove, Reconcile} {
		if op.String() == s {
			return op, true
		}
	}
	return 0, false
}

func drain(ch <-chan PodUpdate) []PodUpdate {
	var out []PodUpdate
	for {
		select {
		case u := <-ch:
			out = append(out, u)
		default:
			return out
		}
	}
}

func drainEvents(ch <-chan string) []string {
	var out []string
	for {
		select {
		case e := <-ch:
			out = append(out, e)
		default:
			return out
		}
	}
}

// normalize replaces the config.seen time with the traces' placeholder and
// sorts the pods as the traces do.
func normalize(pods []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p
		if _, ok := p.Annotations[ConfigSeenAnnotation]; ok {
			// The merge's pods are shared and never changed: the
			// placeholder goes into a copy.
			cp := *p
			cp.Annotations = maps.Clone(p.Annotations)
			cp.Annotations[ConfigSeenAnnotation] = seenPlaceholder
			out[i] = &cp
		}
	}
	sortPods(out)
	return out
}

// sortPods orders pods by UID, then source annotation, namespace and name.
func sortPods(pods []*v1.Pod) {
	slices.SortStableFunc(pods, func(a, b *v1.Pod) int {
		if c := strings.Compare(string(a.UID), string(b.UID)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Annotations[ConfigSourceAnnotation], b.Annotations[ConfigSourceAnnotation]); c != 0 {
			return c
		}
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func describe(us []PodUpdate) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Op.String() + "/" + u.Source + "(" + uids(u.Pods) + ")"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func describeTrace(us []traceUpdate) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Op + "/" + u.Source + "(" + uids(u.Pods) + ")"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func uids(pods []*v1.Pod) string {
	s := make([]string, len(pods))
	for i, p := range pods {
		s[i] = string(p.UID)
	}
	return strings.Join(s, ",")
}
