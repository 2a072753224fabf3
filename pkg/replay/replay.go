// Package replay replays an agent's recording (its events, with the inputs
// it took, in sequence order: a journal's, or an archive's) through a
// kubelet minor's merge, PLEG, sync loop and admit handlers, and reports
// every event where the replay differs from what the agent recorded.
//
// Each agent process is replayed on its own, from its settings (its first
// input) on: a fresh merge takes the source updates it took, in their
// order; the sync loop handles the merge's notifications and is given
// each Node between the same notifications as the agent's was; a fresh
// PLEG relists what the container runtime listed for each recorded relist,
// and inspects with its recorded answers, and the sync loop dispatches
// each of its events with the config events before it that the agent's
// had. The replay's config and PLEG events must equal the recorded ones,
// one by one, but for their sequence numbers and times.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// Kubelet is the kubelet minor a recording is replayed through: the one
// that recorded it.
type Kubelet struct {
	// Merge, PLEG and SyncLoop are the minor's semantics.
	Merge    merge.Semantics
	PLEG     pleg.Semantics
	SyncLoop syncloop.Semantics
	// NewAdmission builds the minor's admit handlers.
	NewAdmission admission.NewAdmitHandler
	// SetFeatureGates sets the kubelet's feature gates, which its admit
	// handlers read, before they are built.
	SetFeatureGates func(map[string]bool) error
}

// Report is what a replay found, agent process by agent process.
type Report struct {
	Processes []Process `json:"processes"`
}

// Differences counts the differences of every process.
func (r Report) Differences() int {
	n := 0
	for _, p := range r.Processes {
		n += len(p.Differences)
	}
	return n
}

// Process is the replay of one agent process's recording.
type Process struct {
	// From and To are the sequence numbers of its first and last recorded
	// events.
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	// NotReplayed says why the process was not replayed (its start is not
	// in the recording); empty when it was.
	NotReplayed string `json:"notReplayed,omitempty"`
	// Inputs, Config and PLEG count the inputs replayed and the config and
	// PLEG events compared.
	Inputs int `json:"inputs"`
	Config int `json:"config"`
	PLEG   int `json:"pleg"`
	// Unrecorded counts the config events the replay made after the last
	// recorded one, and the PLEG events of the last recorded relist past
	// the recorded ones, of a process whose recording ends before the
	// process did (it was killed before writing them, or the recording
	// ends): not differences.
	Unrecorded int `json:"unrecorded,omitempty"`
	// Differences are the events where the replay differs.
	Differences []Difference `json:"differences,omitempty"`
}

// Difference is one event where the replay differs from the recording:
// Recorded is nil for an event the replay made and the agent did not,
// Replayed for one the agent recorded and the replay did not make.
type Difference struct {
	Recorded *v1alpha1.Event `json:"recorded,omitempty"`
	Replayed *v1alpha1.Event `json:"replayed,omitempty"`
}

// Run replays a recording: its event and gap messages, in sequence
// order (an archive's, or a stream's), through k.
func Run(ctx context.Context, recording []v1alpha1.StreamMessage, k Kubelet) (Report, error) {
	var r Report
	for _, p := range processes(recording) {
		pr := Process{From: p.events[0].Seq, To: p.events[len(p.events)-1].Seq}
		switch {
		case p.settings == nil:
			pr.NotReplayed = "its start is not in the recording (the journal no longer had it, or the recording's window starts later): record with a longer --since"
		case p.missing != nil:
			pr.NotReplayed = fmt.Sprintf("events %d to %d of it are missing from the recording (a gap): what the agent took in then is not known", p.missing.From, p.missing.To)
		default:
			var bad *badRecording
			switch err := replayProcess(ctx, p, k, &pr); {
			case errors.As(err, &bad):
				pr.NotReplayed, pr.Differences = bad.Error(), nil
			case err != nil:
				return r, fmt.Errorf("replaying the agent process of events %d to %d: %w", pr.From, pr.To, err)
			}
		}
		r.Processes = append(r.Processes, pr)
	}
	return r, nil
}

// replayProcess replays one process whose settings were recorded.
func replayProcess(ctx context.Context, p process, k Kubelet, pr *Process) error {
	s := p.settings
	mode, err := merge.ParseMode(s.Mode)
	if err != nil {
		return fmt.Errorf("its merge mode: %w", err)
	}
	var adm admission.AdmitHandler
	if s.Admission != nil {
		if k.NewAdmission == nil {
			return fmt.Errorf("the agent judged admission, and this build has no admit handlers")
		}
		if err := k.SetFeatureGates(s.FeatureGates); err != nil {
			return err
		}
		if adm, err = k.NewAdmission(ctx, admission.ConfigFrom(s.Admission)); err != nil {
			return fmt.Errorf("building the admit handlers: %w", err)
		}
	}
	var replayedConfig, replayedPLEG []v1alpha1.Event
	loop := syncloop.New(syncloop.Options{
		Ring:              eventring.New(1, nil),
		Dispatcher:        syncloop.NewDispatcher(k.SyncLoop, s.MaxDeadContainersPerContainer),
		Admission:         adm,
		AdmissionMessages: s.AdmissionMessages,
		Published: func(e v1alpha1.Event) {
			if e.Kind == v1alpha1.EventKindPLEG {
				replayedPLEG = append(replayedPLEG, e)
			} else {
				replayedConfig = append(replayedConfig, e)
			}
		},
	})
	pc := merge.New(merge.Options{Mode: mode, Semantics: k.Merge})
	pc.Register(s.Sources...)

	// The recorded config and PLEG events, where each PLEG event is, and
	// each relist's inspections.
	var recordedConfig []v1alpha1.Event
	// inspections and events are each relist's recorded inspections and
	// PLEG events (where they are in the recording), by where its listing
	// is.
	inspections := map[int][]*v1alpha1.InspectionInput{}
	events := map[int][]int{}
	relistAt := -1
	for i, e := range p.events {
		switch {
		case e.Kind == v1alpha1.EventKindConfig:
			recordedConfig = append(recordedConfig, e)
		case e.Kind == v1alpha1.EventKindPLEG:
			pr.PLEG++
			if relistAt < 0 {
				pr.Differences = append(pr.Differences, Difference{Recorded: &p.events[i]})
				continue
			}
			events[relistAt] = append(events[relistAt], i)
		case e.Input != nil && e.Input.Relist != nil:
			relistAt = i
		case e.Input != nil && e.Input.Inspection != nil:
			if relistAt < 0 {
				return &badRecording{seq: e.Seq, err: fmt.Errorf("an inspection before any relist")}
			}
			inspections[relistAt] = append(inspections[relistAt], e.Input.Inspection)
		}
	}
	// lastRelist is where the recording's last relist is: the replay's
	// events of it past the recorded ones are not differences when the
	// recording ends before the process did.
	lastRelist := relistAt
	// unmatched are the recorded events of the relist being replayed that
	// no replayed event has matched yet.
	var unmatched []int

	// The recording is replayed in its order, up to each place a PLEG
	// event of the replay's relist is dispatched at: the agent's relist
	// ran while its merge and sync loop went on. pending are the merge's
	// notifications the sync loop has not handled: it handles the next
	// where the agent published a config event.
	var pending []merge.PodUpdate
	sent := sourcePods{}
	rt := &runtime{}
	clk := testingclock.NewFakeClock(time.Time{})
	var relists *pleg.GenericPLEG
	cursor, relisting := 0, false
	// extras are the replayed PLEG events of the relist being replayed
	// that match no recorded one.
	var extras []*v1alpha1.Event
	var advance func(upto int) error
	step := func(i int) error {
		e := p.events[i]
		if e.Kind == v1alpha1.EventKindConfig {
			if len(pending) > 0 {
				loop.HandleConfig(pending[0])
				pending = pending[1:]
			}
			return nil
		}
		in := e.Input
		if e.Kind != v1alpha1.EventKindInput || in == nil {
			return nil
		}
		switch {
		case in.Update != nil:
			pr.Inputs++
			u, err := sent.update(in.Update)
			if err != nil {
				return &badRecording{seq: e.Seq, err: err}
			}
			if !slices.Contains(s.Sources, in.Update.Source) {
				return &badRecording{seq: e.Seq, err: fmt.Errorf("its source %q is not one of the agent's, %q", in.Update.Source, s.Sources)}
			}
			if err := pc.Merge(ctx, in.Update.Source, u); err != nil {
				return fmt.Errorf("merging input %d: %w", e.Seq, err)
			}
			pending = append(pending, drain(pc)...)
		case in.Node != nil || in.NodeGone:
			pr.Inputs++
			var n *v1.Node
			if !in.NodeGone {
				n = in.Node
			}
			loop.SetNode(n)
		case in.Relist != nil:
			if relists == nil || relisting {
				return &badRecording{seq: e.Seq, err: fmt.Errorf("a relist of an agent that ran no PLEG, or amid another relist's events")}
			}
			pr.Inputs += 1 + len(inspections[i])
			rt.relist(in.Relist, inspections[i])
			clk.SetTime(e.Time.Time)
			relisting, unmatched, extras = true, slices.Clone(events[i]), nil
			err := relists.Relist(ctx)
			relisting = false
			if err != nil {
				return fmt.Errorf("relisting input %d: %w", e.Seq, err)
			}
			for _, j := range unmatched {
				pr.Differences = append(pr.Differences, Difference{Recorded: &p.events[j]})
			}
			if i == lastRelist && p.endsEarly {
				pr.Unrecorded += len(extras)
			} else {
				for _, x := range extras {
					pr.Differences = append(pr.Differences, Difference{Replayed: x})
				}
			}
		}
		return nil
	}
	// failed is the first error of a step the PLEG's handler took.
	var failed error
	advance = func(upto int) error {
		for cursor < upto && failed == nil {
			i := cursor
			cursor++
			if err := step(i); err != nil {
				return err
			}
		}
		return failed
	}
	if s.PLEG {
		relists = pleg.New(rt, pleg.Options{Semantics: k.PLEG, ChannelCapacity: s.PLEGChannelCapacity, Clock: clk,
			Handler: handlerFunc(func(r pleg.ComputedEvent) {
				if r.Outcome == pleg.OutcomeInspectionFailed {
					// The sync loop drops it, as the kubelet does.
					loop.HandleEvent(r)
					return
				}
				// The PLEG goes through a relist's pods in no set order,
				// the kubelet's as well: a replayed event is the recorded
				// one next of its pod in the relist, dispatched where
				// that one was.
				j := slices.IndexFunc(unmatched, func(j int) bool { return p.events[j].PodUID == r.ID })
				at := -1
				if j >= 0 {
					at = unmatched[j]
					unmatched = slices.Delete(unmatched, j, j+1)
					if failed == nil {
						failed = advance(at)
					}
				}
				n := len(replayedPLEG)
				loop.HandleEvent(r)
				if len(replayedPLEG) == n {
					return
				}
				got := &replayedPLEG[n]
				switch {
				case at >= 0 && !sameEvent(p.events[at], *got):
					pr.Differences = append(pr.Differences, Difference{Recorded: &p.events[at], Replayed: got})
				case at < 0:
					extras = append(extras, got)
				}
			})})
	}
	if err := advance(len(p.events)); err != nil {
		return err
	}
	for _, u := range pending {
		loop.HandleConfig(u)
	}
	pr.Config = len(recordedConfig)
	compare(recordedConfig, replayedConfig, p.endsEarly, pr)
	return nil
}

// handlerFunc is a pleg.EventHandler.
type handlerFunc func(pleg.ComputedEvent)

func (f handlerFunc) HandleEvent(r pleg.ComputedEvent) { f(r) }

// badRecording is an input that cannot be replayed: the process it is of
// is not replayed.
type badRecording struct {
	seq uint64
	err error
}

func (b *badRecording) Error() string {
	return fmt.Sprintf("input %d cannot be replayed: %v", b.seq, b.err)
}

// sourcePods are, for each source, the pods of its last update by their
// recorded fingerprints, which a later update refers to.
type sourcePods map[string]map[string]*v1.Pod

// update returns the merge's update of a recorded one, each pod it refers
// to filled in, and remembers its pods.
func (s sourcePods) update(u *v1alpha1.InputUpdate) (merge.PodUpdate, error) {
	op, err := parseOp(u.Op)
	if err != nil {
		return merge.PodUpdate{}, err
	}
	if len(u.Fingerprints) != 0 && len(u.Fingerprints) != len(u.Pods) {
		return merge.PodUpdate{}, fmt.Errorf("%d fingerprints for %d pods", len(u.Fingerprints), len(u.Pods))
	}
	pods := make([]*v1.Pod, len(u.Pods))
	byFingerprint := map[string]*v1.Pod{}
	for i, p := range u.Pods {
		fp := ""
		if len(u.Fingerprints) > 0 {
			fp = u.Fingerprints[i]
		}
		if p == nil {
			if p = s[u.Source][fp]; fp == "" || p == nil {
				return merge.PodUpdate{}, fmt.Errorf("pod %d of source %q refers to a pod its source sent before, which the recording does not hold", i, u.Source)
			}
		}
		pods[i] = p
		if fp != "" {
			byFingerprint[fp] = p
		}
	}
	s[u.Source] = byFingerprint
	return merge.PodUpdate{Op: op, Source: u.Source, Pods: pods, Origins: u.Origins, Warnings: u.Warnings}, nil
}

// parseOp is the merge's Op of a recorded input's op.
func parseOp(s string) (merge.Op, error) {
	for _, op := range []merge.Op{merge.Set, merge.Add, merge.Update, merge.Delete, merge.Remove, merge.Reconcile} {
		if op.String() == s {
			return op, nil
		}
	}
	return 0, fmt.Errorf("an update of op %q, which no source sends", s)
}

// drain takes the notifications the merge has made.
func drain(pc *merge.PodConfig) []merge.PodUpdate {
	var out []merge.PodUpdate
	for {
		select {
		case u := <-pc.Updates():
			out = append(out, u)
		default:
			return out
		}
	}
}

// compare compares the recorded events of a kind with the replay's, one
// by one.
func compare(recorded, replayed []v1alpha1.Event, endsEarly bool, pr *Process) {
	for i := range max(len(recorded), len(replayed)) {
		switch {
		case i >= len(replayed):
			pr.Differences = append(pr.Differences, Difference{Recorded: &recorded[i]})
		case i >= len(recorded) && endsEarly:
			pr.Unrecorded++
		case i >= len(recorded):
			pr.Differences = append(pr.Differences, Difference{Replayed: &replayed[i]})
		case !sameEvent(recorded[i], replayed[i]):
			pr.Differences = append(pr.Differences, Difference{Recorded: &recorded[i], Replayed: &replayed[i]})
		}
	}
}

// sameEvent reports whether the replay's event is the recorded one, but
// for the sequence number and the time (when the agent published it, or
// listed the runtime): whether they are the same on the wire.
func sameEvent(recorded, replayed v1alpha1.Event) bool {
	replayed.Seq, replayed.Time = recorded.Seq, recorded.Time
	a, errA := json.Marshal(recorded)
	b, errB := json.Marshal(replayed)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}
