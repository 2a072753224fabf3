package plegstats

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/cri/critest"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// TestRecorderCounts feeds a Recorder two relists' observations: what it
// counts, its channel accounting and what a failed relist keeps.
func TestRecorderCounts(t *testing.T) {
	r := New(Options{ChannelCapacity: 3})
	started := func(outcome string) pleg.ComputedEvent {
		return pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{Type: pleg.ContainerStarted}, Outcome: outcome}
	}
	r.RelistStarted(0, false)
	for _, o := range []string{pleg.OutcomeSent, pleg.OutcomeSent, pleg.OutcomeSent, pleg.OutcomeDropped, pleg.OutcomeDropped} {
		r.EventComputed(started(o))
	}
	r.EventComputed(pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{Type: pleg.ContainerDied}, Outcome: pleg.OutcomeInspectionFailed})
	r.PodInspected(pleg.PodInspection{Relist: 1, PodID: "uid-1", Error: "injected"})
	r.RelistDone(pleg.RelistSummary{Seq: 1}, time.Millisecond, pleg.RelistCounts{Pods: 2, RunningPods: 1, Running: 3, Exited: 1})

	st := r.Stats()
	if st.EventsDropped != 2 || st.EventsSent[pleg.ContainerStarted] != 3 || st.EventsComputed[pleg.ContainerStarted] != 5 {
		t.Fatalf("dropped %d, sent %v, computed %v", st.EventsDropped, st.EventsSent, st.EventsComputed)
	}
	if st.ChannelLength != 3 || st.ChannelCapacity != 3 {
		t.Fatalf("channel %d/%d", st.ChannelLength, st.ChannelCapacity)
	}
	if st.EventsDiscarded != 1 || st.InspectionFailures != 1 {
		t.Fatalf("discarded %d, inspection failures %d", st.EventsDiscarded, st.InspectionFailures)
	}
	if st.Pods != 2 || st.RunningPods != 1 || st.Containers[pleg.StateRunning] != 3 || st.Containers[pleg.StateExited] != 1 || len(st.Containers) != 4 {
		t.Fatalf("pods %d, running %d, containers %v", st.Pods, st.RunningPods, st.Containers)
	}

	// A failed relist counts as one, keeps its error and the last good
	// relist's objects, and starts the channel over.
	r.RelistStarted(time.Second, true)
	r.RelistDone(pleg.RelistSummary{Seq: 2, Error: "relist: injected"}, time.Millisecond, pleg.RelistCounts{})
	st = r.Stats()
	if st.Relists != 2 || st.RelistFailures != 1 || st.LastError != "relist: injected" {
		t.Fatalf("relists %d, failures %d, last error %q", st.Relists, st.RelistFailures, st.LastError)
	}
	if st.RelistDuration.Count != 2 || st.RelistDuration.Errors != 1 || st.RelistInterval.Count != 1 {
		t.Fatalf("relist duration %+v, interval %+v", st.RelistDuration, st.RelistInterval)
	}
	if st.Pods != 2 || st.ChannelLength != 0 {
		t.Fatalf("after a failed relist: pods %d, channel %d", st.Pods, st.ChannelLength)
	}
	// A good relist keeps the error of the failed one.
	r.RelistStarted(time.Second, true)
	r.RelistDone(pleg.RelistSummary{Seq: 3}, time.Millisecond, pleg.RelistCounts{})
	if st := r.Stats(); st.LastError != "relist: injected" || st.Pods != 0 {
		t.Fatalf("after a good relist: last error %q, pods %d", st.LastError, st.Pods)
	}
}

// TestRecorderSlowestPods checks that the slowest inspections are listed
// slowest first, at most SlowestPods of them, and only from the relists
// still in the history.
func TestRecorderSlowestPods(t *testing.T) {
	r := New(Options{HistoryLength: 2, SlowestPods: 2})
	for seq, secs := range []float64{9, 1, 3, 2} {
		relist := uint64(seq + 1)
		r.PodInspected(pleg.PodInspection{Relist: relist, PodID: "p", DurationSeconds: secs})
		r.RelistDone(pleg.RelistSummary{Seq: relist}, time.Millisecond, pleg.RelistCounts{})
	}
	got := r.Stats().SlowestPods
	if len(got) != 2 || got[0].DurationSeconds != 3 || got[1].DurationSeconds != 2 {
		t.Fatalf("slowest pods %+v, want the 3 s and 2 s inspections of relists 3 and 4", got)
	}
}

// TestRecorderObservesAPLEG runs a PLEG with a Recorder as its Observer over
// a fake CRI runtime: the statistics count what the relists did.
func TestRecorderObservesAPLEG(t *testing.T) {
	srv := critest.NewForTest(t)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	client, err := cri.Dial(srv.Endpoint(), cri.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	r := New(Options{})
	g := pleg.New(client, pleg.Options{Observer: r})
	ctx := context.Background()

	sb := srv.RunSandbox("uid-1", "web", "default", "10.0.0.7")
	c := srv.CreateContainer(sb, "app")
	srv.StartContainer(c)
	if err := g.Relist(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Fail(critest.MethodListContainers, errors.New("injected"))
	if err := g.Relist(ctx); err == nil {
		t.Fatal("the relist did not fail")
	}

	st := r.Stats()
	if st.Relists != 2 || st.RelistFailures != 1 || st.LastError == "" {
		t.Fatalf("relists %d, failures %d, last error %q", st.Relists, st.RelistFailures, st.LastError)
	}
	if st.EventsSent[pleg.ContainerStarted] != 2 || st.Pods != 1 || st.RunningPods != 1 || st.Containers[pleg.StateRunning] != 1 {
		t.Fatalf("events sent %v, pods %d (%d running), containers %v", st.EventsSent, st.Pods, st.RunningPods, st.Containers)
	}
	for _, call := range []string{pleg.CallListPodSandbox, pleg.CallListContainers, pleg.CallPodSandboxStatus, pleg.CallContainerStatus} {
		if st.Calls[call].Count == 0 {
			t.Errorf("no latency recorded for %s", call)
		}
	}
	if st.Calls[pleg.CallListContainers].Errors != 1 {
		t.Errorf("%s errors %d, want 1", pleg.CallListContainers, st.Calls[pleg.CallListContainers].Errors)
	}
	if len(st.SlowestPods) == 0 || st.SlowestPods[0].PodID != "uid-1" {
		t.Errorf("slowest pods: %+v", st.SlowestPods)
	}
	if _, err := json.Marshal(st); err != nil {
		t.Errorf("Stats is not JSON-friendly: %v", err)
	}
}

// TestRecorderReadWhileRelisting reads the statistics while a PLEG relists,
// so that the race detector sees the reads next to the observations.
func TestRecorderReadWhileRelisting(t *testing.T) {
	srv := critest.NewForTest(t)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	client, err := cri.Dial(srv.Endpoint(), cri.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	srv.RunSandbox("uid-1", "web", "default", "10.0.0.7")
	r := New(Options{})
	g := pleg.New(client, pleg.Options{RelistPeriod: time.Millisecond, Observer: r})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.Run(ctx) }()
	defer func() { cancel(); <-done }()

	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		st := r.Stats()
		if _, err := json.Marshal(st); err != nil {
			t.Fatalf("Stats is not JSON-friendly: %v", err)
		}
		if st.Relists-st.RelistFailures >= 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d relists, %d failed, in 30 s", st.Relists, st.RelistFailures)
		}
	}
}
