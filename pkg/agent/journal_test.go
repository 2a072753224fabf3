package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/journal"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// startJournaled runs an agent process with a file source on manifests and
// its journal in dir, with an event ring of 4 events, so that streams read
// most history from the journal; set changes the config before it starts.
func startJournaled(t *testing.T, dir, manifests string, set ...func(*Config)) *testAgent {
	t.Helper()
	cfg := journaledConfig(dir, manifests)
	for _, f := range set {
		f(cfg)
	}
	a, err := New(cfg, kubeletminor.V136, yamlDecoder{})
	if err != nil {
		t.Fatal(err)
	}
	if a.journal == nil {
		t.Fatal("the agent runs without its journal")
	}
	restored := a.ring.LastSeq()
	ta := runAgent(t, a, context.Background())
	ta.manifests = manifests
	// Run published its boundary, and its sources are running.
	ta.waitFor(t, "the agent to be ready", func() bool { return a.ring.LastSeq() > restored && a.podConfig.Ready() })
	return ta
}

// journaledConfig is an agent's configuration with a file source on
// manifests, its journal in dir (none when dir is empty) and an event ring
// of 4 events.
func journaledConfig(dir, manifests string) *Config {
	return &Config{
		Node: nodeenv.Env{NodeName: "node-1"},
		// The file source lists the directory before its watch is on, as
		// the kubelet's does: a manifest written in between is found by
		// the next list, within a second.
		Sources:       source.Config{StaticPodPath: manifests, FileCheckFrequency: time.Second, HTTPCheckFrequency: 20 * time.Second},
		PLEG:          pleg.Options{RelistPeriod: time.Second, RelistThreshold: time.Minute},
		ListenAddress: "127.0.0.1:0",
		Mode:          merge.Incremental,
		EventBuffer:   4,
		Heartbeat:     200 * time.Millisecond,
		Limits:        serve.DefaultLimits(),
		Journal:       JournalConfig{Dir: dir, MaxBytes: journal.DefaultMaxBytes, MaxAge: journal.DefaultMaxAge},
	}
}

// addPod writes a manifest and waits for the event that adds its pod, and
// for the journal to hold every event so far (the tests' event ring keeps
// only 4).
func (ta *testAgent) addPod(t *testing.T, name string) {
	t.Helper()
	ta.writeManifest(t, name+".yaml", fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n  containers:\n  - name: c\n    image: busybox\n", name))
	ta.waitFor(t, "the event of "+name, func() bool {
		return slices.ContainsFunc(ta.syncLoop.List(), func(p syncloop.Sourced) bool { return p.Pod.Name == name+"-node-1" })
	})
	ta.waitFor(t, "the journal to hold the event of "+name, func() bool { return ta.journal.LastSeq() >= ta.ring.LastSeq() })
}

// everyKind asks a stream for the events of every kind, inputs included,
// so that its sequence numbers follow on without holes.
const everyKind = "&kind=config&kind=pleg&kind=input"

// TestJournalKeepsEventsAcrossRestarts restarts the agent over its journal:
// a stream since a time before the restart gets every event of the first
// process, event by event as it served them, then the second process's
// boundary with the time no agent watched, then its own events, numbered on
// without a gap; a stream that resumes across the restart in the first
// process's epoch continues the same way.
func TestJournalKeepsEventsAcrossRestarts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	manifests := t.TempDir()

	first := startJournaled(t, dir, manifests)
	for _, name := range []string{"web", "db", "cache", "queue", "proxy", "batch"} {
		first.addPod(t, name)
	}
	last := first.ring.LastSeq()
	epoch := first.ring.Epoch()
	// Most of these are in the journal only: the ring keeps 4.
	before, _ := first.stream(t, fmt.Sprintf("?since=0&until=%d"+everyKind, last)).ReadToEnd(t)
	if len(before) != int(last) || before[0].Kind != v1alpha1.EventKindBoundary || before[0].Boundary.Down != nil || before[0].Boundary.PreviousStop != "" {
		t.Fatalf("the first process served %d events starting with %+v, want %d starting with a first start's boundary", len(before), before[0], last)
	}
	first.stop()
	stoppedAt := time.Now()
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("journal directory: %v, mode %v; want 0700", err, st.Mode().Perm())
	}

	second := startJournaled(t, dir, manifests)
	startedAt := time.Now()
	if second.ring.Epoch() != epoch {
		t.Fatalf("the second process's epoch is %s, want the journal's %s", second.ring.Epoch(), epoch)
	}
	// The file source adds the six pods again.
	second.waitFor(t, "the second process's events", func() bool { return len(second.syncLoop.List()) == 6 })
	now := second.ring.LastSeq()
	second.waitFor(t, "the journal to hold them", func() bool { return second.journal.LastSeq() >= now })

	check := func(t *testing.T, query string, from uint64) {
		t.Helper()
		got, _ := second.stream(t, query).ReadToEnd(t)
		var want []v1alpha1.Event
		for _, e := range before {
			if e.Seq > from {
				want = append(want, e)
			}
		}
		if len(got) < len(want)+1 {
			t.Fatalf("got %d events, want at least %d", len(got), len(want)+1)
		}
		if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
			t.Fatalf("the first process's events differ after the restart (-before +after):\n%s", diff)
		}
		b := got[len(want)]
		if b.Seq != last+1 || b.Kind != v1alpha1.EventKindBoundary || b.Boundary == nil {
			t.Fatalf("event after the first process's last: %+v, want the boundary %d", b, last+1)
		}
		if b.Boundary.PreviousStop != v1alpha1.StopClean || b.Boundary.Down == nil {
			t.Fatalf("boundary %+v, want a clean stop and the time no agent watched", *b.Boundary)
		}
		down := b.Boundary.Down
		if down.Start.After(stoppedAt) || down.End.Time.Before(stoppedAt) || down.End.After(startedAt) || down.Start.Before(&before[len(before)-1].Time) {
			t.Fatalf("down %v to %v, want from the first process's last moment (stopped by %v, last event %v) to the second's start (by %v)",
				down.Start, down.End, stoppedAt, before[len(before)-1].Time, startedAt)
		}
		for i, e := range got[len(want):] {
			if e.Seq != last+1+uint64(i) {
				t.Fatalf("event %d after the boundary is %d, want %d", i, e.Seq, last+1+uint64(i))
			}
		}
	}
	t.Run("metrics", func(t *testing.T) {
		_, body := second.get(t, "/metrics")
		for _, m := range []string{"podsrc_journal_bytes ", "podsrc_journal_events ", "podsrc_journal_oldest_event_timestamp_seconds ",
			"podsrc_journal_write_errors_total 0", `podsrc_journal_dropped_events_total{bound="size"} 0`, "podsrc_journal_commit_duration_seconds_count "} {
			if !strings.Contains(string(body), "\n"+m) {
				t.Errorf("/metrics lacks %q", m)
			}
		}
	})
	t.Run("since 2h", func(t *testing.T) { check(t, fmt.Sprintf("?since=2h&until=%d"+everyKind, now), 0) })
	t.Run("resumed across the restart", func(t *testing.T) {
		check(t, fmt.Sprintf("?since=%d&epoch=%s&until=%d"+everyKind, last-3, epoch, now), last-3)
	})
}

// TestRestartWithoutExposedPodSpecs restarts an agent that served pod
// specs in full (--expose-pod-specs) without the flag: the second process
// serves none of the first one's journaled lines, a stream since the start
// reports them as a gap, and its boundary says they were dropped.
func TestRestartWithoutExposedPodSpecs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	manifests := t.TempDir()

	first := startJournaled(t, dir, manifests, func(c *Config) { c.ExposePodSpecs = true })
	for _, name := range []string{"web", "db", "cache", "queue", "proxy", "batch"} {
		first.addPod(t, name)
	}
	last := first.ring.LastSeq()
	epoch := first.ring.Epoch()
	first.stop()

	second := startJournaled(t, dir, manifests)
	if second.ring.Epoch() != epoch {
		t.Fatalf("the second process's epoch is %s, want the journal's %s", second.ring.Epoch(), epoch)
	}
	second.waitFor(t, "the second process's events", func() bool { return second.ring.LastSeq() >= last+2 })
	now := second.ring.LastSeq()
	for _, query := range []string{
		fmt.Sprintf("?since=0&until=%d", now),
		fmt.Sprintf("?since=2h&until=%d", now),
		fmt.Sprintf("?since=%d&epoch=%s&until=%d", last-3, epoch, now),
	} {
		t.Run(query, func(t *testing.T) {
			s := second.stream(t, query)
			var events []v1alpha1.Event
			var gapTo uint64
			for m := s.NextOf(t); m.Type != v1alpha1.MessageEnd; m = s.NextOf(t) {
				switch m.Type {
				case v1alpha1.MessageGap:
					if len(events) > 0 || m.To != last {
						t.Fatalf("gap %d-%d after %d events, want one up to %d before any", m.From, m.To, len(events), last)
					}
					gapTo = m.To
				case v1alpha1.MessageEvent:
					if m.Event.Seq <= last {
						t.Fatalf("the second process served event %d, recorded with --expose-pod-specs", m.Event.Seq)
					}
					events = append(events, *m.Event)
				default:
					t.Fatalf("unexpected message %+v", m)
				}
			}
			if gapTo != last {
				t.Fatalf("no gap reported for the dropped events 1..%d", last)
			}
			if len(events) == 0 || events[0].Seq != last+1 || events[0].Boundary == nil {
				t.Fatalf("events %+v, want the boundary %d first", events, last+1)
			}
			want := fmt.Sprintf("%d events recorded with --expose-pod-specs were dropped: this agent runs without it", last)
			if b := events[0].Boundary; b.Discarded != want || b.Damage != "" || b.PreviousStop != v1alpha1.StopClean {
				t.Fatalf("boundary %+v, want a clean stop and discarded %q", *b, want)
			}
		})
	}
}

// TestSourcesShowTheJournal checks the journal's state in the sources the
// agent serves: on, with its events and bounds; off; and failed, saying why,
// while the agent serves without it.
func TestSourcesShowTheJournal(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		dir   string
		state string
		error string
	}{
		{name: "off", dir: "", state: v1alpha1.JournalOff},
		{name: "failed", dir: filepath.Join(notADir, "journal"), state: v1alpha1.JournalFailed, error: "journal directory " + filepath.Join(notADir, "journal")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(journaledConfig(tt.dir, t.TempDir()), kubeletminor.V136, yamlDecoder{})
			if err != nil {
				t.Fatal(err)
			}
			j := a.Sources().Journal
			if j == nil || j.State != tt.state || !strings.Contains(j.Error, tt.error) || (tt.error == "") != (j.Error == "") {
				t.Fatalf("journal %+v, want state %s with error %q", j, tt.state, tt.error)
			}
		})
	}

	t.Run("on", func(t *testing.T) {
		ta := startJournaled(t, filepath.Join(t.TempDir(), "journal"), t.TempDir())
		ta.addPod(t, "web")
		var j *v1alpha1.JournalStatus
		ta.waitFor(t, "the journal to hold the pod's event", func() bool {
			j = ta.Sources().Journal
			return j != nil && j.Events >= 2
		})
		if j.State != v1alpha1.JournalOn || j.Bytes <= 0 || j.Oldest == nil || j.MaxBytes != journal.DefaultMaxBytes || j.MaxAge.Duration != journal.DefaultMaxAge || j.Error != "" {
			t.Fatalf("journal %+v, want on with its events, bytes, oldest event and bounds", j)
		}
	})
}
