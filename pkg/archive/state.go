package archive

import (
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve"
)

// state is the serve.State of an archive: what the agent answered when
// it was recorded. It is live and ready.
type state struct{ a *Archive }

func (s state) Sources() v1alpha1.SourceList { return s.a.Sources }
func (s state) PLEG() v1alpha1.PLEGStatus    { return s.a.PLEG }
func (s state) Version() v1alpha1.Version    { return s.a.Version }

// KubeletConfig is the recorded one, or says the archive has none.
func (s state) KubeletConfig() v1alpha1.KubeletConfig {
	if s.a.KubeletConfig != nil {
		return *s.a.KubeletConfig
	}
	return v1alpha1.KubeletConfig{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindKubeletConfig), NodeName: s.a.Manifest.NodeName,
		Reason: "the archive holds no kubelet configuration: its manifest says why"}
}

func (state) Live() error  { return nil }
func (state) Ready() error { return nil }

// Pods is the recorded pod list without its items, and its items that q
// keeps.
func (s state) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	return serve.ListPods(s.a.Pods, q)
}

// Pod is the recorded answer for the pod with the UID; without one, its
// item of the pod list.
func (s state) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	if info, err := serve.FindPod(s.a.PodDetails, uid, ""); err == nil {
		return info, nil
	}
	return serve.FindPod(s.a.Pods, uid, "when it was recorded")
}

// Snapshot is Pods at the window's last event.
func (s state) Snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	head, items := s.Pods(q)
	return s.a.Manifest.Events.Until, head, items
}

// history is the serve.History of an archive's events: an event ring
// that keeps none of them sends every stream to it, and it tells of the
// recorded gaps, and of the events before the window, as gaps.
type history struct {
	events []*v1alpha1.Event
	lines  [][]byte
}

// newHistory returns the history of a's events, their stream lines
// encoded again from what was decoded.
func newHistory(a *Archive) (*history, error) {
	h := &history{}
	for _, m := range a.Events {
		if m.Type != v1alpha1.MessageEvent {
			continue
		}
		line, err := encodeLine(m)
		if err != nil {
			return nil, &Error{Member: v1alpha1.ArchiveEventsMember, Err: fmt.Errorf("encoding event %d: %w", m.Event.Seq, err)}
		}
		h.events = append(h.events, m.Event)
		h.lines = append(h.lines, line)
	}
	return h, nil
}

// Read fills b with the events after after that follow each other, after
// the gap before the first of them, if any.
func (h *history) Read(b *eventring.Batch, after uint64, max int) error {
	*b = eventring.Batch{}
	i := sort.Search(len(h.events), func(i int) bool { return h.events[i].Seq > after })
	if i == len(h.events) {
		return nil
	}
	if first := h.events[i].Seq; first > after+1 {
		b.MissedFrom, b.MissedTo = after+1, first-1
	}
	for j := i; j < len(h.events) && len(b.Events) < max; j++ {
		if j > i && h.events[j].Seq != h.events[j-1].Seq+1 {
			break
		}
		b.Events = append(b.Events, h.events[j])
		b.Lines = append(b.Lines, h.lines[j])
	}
	return nil
}

// SeqAt returns the sequence number after which the events at or after t
// begin.
func (h *history) SeqAt(t time.Time) (uint64, error) {
	for _, e := range h.events {
		if !e.Time.Time.Before(t) {
			return e.Seq - 1, nil
		}
	}
	if n := len(h.events); n > 0 {
		return h.events[n-1].Seq, nil
	}
	return 0, nil
}
