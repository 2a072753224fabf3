package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
	"github.com/podsrc/podsrc/pkg/replay"
)

// judged has the agent judge admission with noAdmission's chain, and
// record what it was built with, as the agent's command does.
func judged(c *Config) {
	adm, err := noAdmission(context.Background(), admission.Config{})
	if err != nil {
		panic(err)
	}
	c.Admission, c.AdmissionSettings = adm, admission.Config{}.Settings()
}

// recording returns every event the agent holds up to its last, inputs
// included, as the stream messages of a recording.
func (ta *testAgent) recording(t *testing.T) []v1alpha1.StreamMessage {
	t.Helper()
	now := ta.ring.LastSeq()
	events, _ := ta.stream(t, fmt.Sprintf("?since=0&until=%d"+everyKind, now)).ReadToEnd(t)
	if len(events) == 0 || events[len(events)-1].Seq != now {
		t.Fatalf("the recording ends at %v, want at %d", events, now)
	}
	out := make([]v1alpha1.StreamMessage, len(events))
	for i := range events {
		out[i] = v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &events[i]}
	}
	return out
}

// replayV136 replays a recording through the tests' kubelet minor.
func replayV136(t *testing.T, recording []v1alpha1.StreamMessage) replay.Report {
	t.Helper()
	sem, err := kubeletsemantics.Of(kubeletminor.V136)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Run(context.Background(), recording, replay.Kubelet{
		Merge: sem.Merge, PLEG: sem.PLEG, SyncLoop: sem.SyncLoop, NewAdmission: noAdmission,
		SetFeatureGates: func(map[string]bool) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReplayOfAnAgentsRecording records an agent whose static pods come,
// change and go while the runtime runs sandboxes, replays its recording
// through the same kubelet minor and finds no difference; the inputs it
// recorded hold none of the manifests' secrets. Then each way of tampering
// with the recording is found.
func TestReplayOfAnAgentsRecording(t *testing.T) {
	ta := startAgent(t, judged)
	ta.writeManifest(t, "web.yaml", webManifest)
	ta.writeManifest(t, "db.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: db\nspec:\n  containers:\n  - name: db\n    image: postgres:16\n")
	web := ta.staticPod(t, "web-node-1")
	ta.staticPod(t, "db-node-1")
	sb := ta.runtime.RunSandbox(string(web.UID), "web-node-1", "default", "10.1.0.7")
	ta.runtime.RunSandbox("uid-of-nobody", "stray", "default", "10.1.0.8")
	ta.waitFor(t, "the sandboxes' events", func() bool { return ta.eventsOf(v1alpha1.EventKindPLEG) >= 2 })
	// The container dies twice: the second death removes the first
	// container, which the kubelet's container deletor no longer keeps.
	for i, code := range []int32{1, 2} {
		c := ta.runtime.CreateContainer(sb, "web")
		ta.runtime.StartContainer(c)
		ta.waitFor(t, "the container's start", func() bool { return ta.eventsOf(v1alpha1.EventKindPLEG) >= 3+2*i })
		ta.runtime.ExitContainer(c, code, "Error")
		ta.waitFor(t, "the container's death", func() bool { return ta.eventsOf(v1alpha1.EventKindPLEG) >= 4+2*i })
	}
	ta.writeManifest(t, "db.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: db\nspec:\n  containers:\n  - name: db\n    image: postgres:17\n")
	if err := os.Remove(filepath.Join(ta.manifests, "web.yaml")); err != nil {
		t.Fatal(err)
	}
	ta.waitFor(t, "web to go and db to change", func() bool {
		pods := ta.syncLoop.List()
		return len(pods) == 1 && pods[0].Pod.Spec.Containers[0].Image == "postgres:17"
	})
	rec := ta.recording(t)

	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "hunter2") {
		t.Fatalf("the recording holds the manifest's secret, without --expose-pod-specs:\n%s", raw)
	}

	// The SET after db's change refers to web, which did not change.
	if !slices.ContainsFunc(rec, func(m v1alpha1.StreamMessage) bool {
		in := m.Event.Input
		return in != nil && in.Update != nil && slices.Contains(in.Update.Pods, nil)
	}) {
		t.Error("no input refers to a pod its source sent before: every SET is recorded whole")
	}

	r := replayV136(t, rec)
	if len(r.Processes) != 1 {
		t.Fatalf("replayed %d agent processes, want 1: %+v", len(r.Processes), r)
	}
	p := r.Processes[0]
	if p.NotReplayed != "" || len(p.Differences) != 0 || p.Inputs < 3 || p.Config < 3 || p.PLEG < 6 {
		var report strings.Builder
		_ = replay.PrintReport(&report, "the recording", r)
		t.Fatalf("want no difference over at least 3 inputs, 3 config and 6 PLEG events:\n%s", report.String())
	}
	if !slices.ContainsFunc(rec, func(m v1alpha1.StreamMessage) bool { return len(m.Event.Removes) > 0 }) {
		t.Error("no ContainerDied removes a container: the replay of the container deletor is not checked")
	}

	// index returns the position of the first recorded event that match
	// accepts.
	index := func(match func(e *v1alpha1.Event) bool) int {
		i := slices.IndexFunc(rec, func(m v1alpha1.StreamMessage) bool { return match(m.Event) })
		if i < 0 {
			t.Fatal("no such event in the recording")
		}
		return i
	}
	firstUpdate := index(func(e *v1alpha1.Event) bool {
		return e.Input != nil && e.Input.Update != nil && len(e.Input.Update.Pods) > 0
	})
	firstAdd := index(func(e *v1alpha1.Event) bool { return e.Op == v1alpha1.OpAdd && len(e.Pods) > 0 })
	syncs := index(func(e *v1alpha1.Event) bool { return e.Handler == v1alpha1.SyncHandlerPodSyncs })
	firstRelist := index(func(e *v1alpha1.Event) bool {
		return e.Input != nil && e.Input.Relist != nil && len(e.Input.Relist.Sandboxes) > 0
	})
	exited := index(func(e *v1alpha1.Event) bool {
		in := e.Input
		return in != nil && in.Inspection != nil && in.Inspection.Container != nil && in.Inspection.Container.ExitCode == 2
	})
	tests := []struct {
		name   string
		tamper func([]v1alpha1.StreamMessage) []v1alpha1.StreamMessage
		// differs or notReplayed is what the replay must say.
		differs     bool
		notReplayed string
	}{
		{name: "an input left out", notReplayed: "the recording does not hold", tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			return slices.Delete(m, firstUpdate, firstUpdate+1)
		}},
		{name: "an input's pod renamed", differs: true, tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			e := *m[firstUpdate].Event
			u := *e.Input.Update
			u.Pods = slices.Clone(u.Pods)
			p := u.Pods[0].DeepCopy()
			p.Name = "renamed"
			u.Pods[0] = p
			e.Input = &v1alpha1.Input{Redacted: e.Input.Redacted, Update: &u}
			m[firstUpdate].Event = &e
			return m
		}},
		{name: "an ADD recorded as an UPDATE", differs: true, tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			e := *m[firstAdd].Event
			e.Op = v1alpha1.OpUpdate
			m[firstAdd].Event = &e
			return m
		}},
		{name: "a PLEG event of a pod the pod manager does not hold, dispatched to HandlePodSyncs", differs: true, tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			e := *m[syncs].Event
			e.PodUID = "uid-of-another"
			m[syncs].Event = &e
			return m
		}},
		{name: "a sandbox the runtime listed left out", differs: true, tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			e := *m[firstRelist].Event
			l := *e.Input.Relist
			l.Sandboxes = l.Sandboxes[1:]
			e.Input = &v1alpha1.Input{Relist: &l}
			m[firstRelist].Event = &e
			return m
		}},
		{name: "another exit code inspected", differs: true, tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			e := *m[exited].Event
			in := *e.Input.Inspection
			c := proto.Clone(in.Container).(*runtimeapi.ContainerStatus)
			c.ExitCode = 3
			in.Container = c
			e.Input = &v1alpha1.Input{Inspection: &in, Redacted: e.Input.Redacted}
			m[exited].Event = &e
			return m
		}},
		{name: "the start cut off", notReplayed: "its start is not in the recording", tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			return m[1:]
		}},
		{name: "a gap amid the process", notReplayed: "missing from the recording (a gap)", tamper: func(m []v1alpha1.StreamMessage) []v1alpha1.StreamMessage {
			gap := v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: m[firstUpdate].Event.Seq, To: m[firstUpdate].Event.Seq}
			m[firstUpdate] = gap
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := replayV136(t, tt.tamper(slices.Clone(rec)))
			got := r.Processes[0]
			switch {
			case tt.differs && r.Differences() == 0:
				t.Fatalf("the replay found no difference: %+v", r)
			case !tt.differs && r.Differences() != 0:
				t.Fatalf("the replay found differences: %+v", r)
			case !strings.Contains(got.NotReplayed, tt.notReplayed) || (tt.notReplayed == "") != (got.NotReplayed == ""):
				t.Fatalf("not replayed because %q, want %q", got.NotReplayed, tt.notReplayed)
			}
		})
	}
}

// TestReplayAcrossARestart replays a journal's recording of two agent
// processes, each on its own, with no difference.
func TestReplayAcrossARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	manifests := t.TempDir()
	first := startJournaled(t, dir, manifests, judged)
	first.addPod(t, "web")
	first.addPod(t, "db")
	first.stop()
	second := startJournaled(t, dir, manifests, judged)
	second.waitFor(t, "the pods again", func() bool { return len(second.syncLoop.List()) == 2 })
	second.addPod(t, "cache")

	r := replayV136(t, second.recording(t))
	if len(r.Processes) != 2 || r.Differences() != 0 {
		t.Fatalf("replay %+v, want 2 agent processes and no difference", r)
	}
	for _, p := range r.Processes {
		if p.NotReplayed != "" || p.Config == 0 {
			t.Fatalf("agent process %+v: want it replayed, with its config events", p)
		}
	}
}
