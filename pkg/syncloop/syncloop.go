package syncloop

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// Options configure a SyncLoop.
type Options struct {
	// Ring is where the sync loop publishes its events.
	Ring *eventring.Ring
	// Dispatcher is the dispatch of the reproduced kubelet minor.
	Dispatcher Dispatcher
	// Admission are the admit handlers of the reproduced kubelet minor,
	// nil for none.
	Admission admission.AdmitHandler
	// AdmissionMessages quotes every message the kubelet wrote on a pod
	// it rejected, not only its own (admission.KubeletVerdict).
	AdmissionMessages bool
	// Published, when set, is told of each published event.
	Published func(v1alpha1.Event)
	// Judged, when set, is told of the verdicts on the pods of each ADD.
	Judged func(map[types.UID]v1alpha1.Admission)
	// NodeInput, when set, makes SetNode publish the event it returns for
	// the Node (an input, v1alpha1.EventKindInput) before it takes the
	// Node, in the order of the config events: a replay of the recording
	// gives the admit handlers each Node between the same notifications.
	NodeInput func(*v1.Node) v1alpha1.Event
}

// SyncLoop is where the config side (the merge's notifications, the
// node for the admit handlers) and the runtime side (the PLEG's events)
// meet, as in the kubelet's syncLoopIteration: each notification is judged
// once, folded into the view with its verdicts and published; each PLEG
// event is dispatched by the pod the view holds under its UID and
// published. handleMu orders the config side's changes, judging included;
// viewMu guards only the view, and orders a config event with the view's
// change, so that a stream that starts with a snapshot continues exactly
// after it. The PLEG's relist takes viewMu only to read, and never while
// the admit handlers judge. Safe for concurrent use.
type SyncLoop struct {
	opts Options

	// handleMu is held by HandleConfig and SetNode, and taken before
	// viewMu.
	handleMu   sync.Mutex
	admissions *Admissions

	viewMu sync.RWMutex
	view   *View
}

// New returns a sync loop with an empty view.
func New(opts Options) *SyncLoop {
	return &SyncLoop{opts: opts, admissions: NewAdmissions(opts.Admission, opts.AdmissionMessages), view: NewView()}
}

// HandleConfig takes one notification of the merge, as the kubelet's sync
// loop takes it from its config channel.
func (l *SyncLoop) HandleConfig(u merge.PodUpdate) {
	l.handleMu.Lock()
	defer l.handleMu.Unlock()
	e := ConfigEvent(u)
	l.opts.Dispatcher.Config(u.Op).SetOn(&e)
	// Judged before the pods enter the view, without viewMu: no reader
	// sees an added pod without its verdict, and none waits on the admit
	// handlers (they rebuild the node's resource summary over every active
	// pod: milliseconds at thousands of pods).
	verdicts := l.admissions.Apply(u)
	// Only an ADD's event and counts carry its verdicts; the others' are
	// the kubelet's own, read back.
	added := u.Op == merge.Add
	if added {
		WithAdmissions(&e, verdicts)
	}
	l.viewMu.Lock()
	l.view.Apply(u, verdicts)
	l.opts.Ring.Publish(e)
	l.viewMu.Unlock()
	if l.opts.Published != nil {
		l.opts.Published(e)
	}
	if added && l.opts.Judged != nil {
		l.opts.Judged(verdicts)
	}
}

// SetNode takes the kubelet's Node object, for the admit handlers; nil
// when it is gone.
func (l *SyncLoop) SetNode(n *v1.Node) {
	l.handleMu.Lock()
	defer l.handleMu.Unlock()
	if l.opts.NodeInput != nil {
		l.opts.Ring.Publish(l.opts.NodeInput(n))
	}
	verdicts := l.admissions.SetNode(n)
	if len(verdicts) == 0 {
		return
	}
	l.viewMu.Lock()
	defer l.viewMu.Unlock()
	l.view.SetAdmissions(verdicts)
}

// HandleEvent implements pleg.EventHandler: it puts each event the PLEG
// computes on the event ring while the relist runs, ContainerChanged
// marked as not sent by the kubelet. Publishing never waits for a stream,
// so the relist is not slowed by readers and no event is dropped on the way
// to the event ring: a stream that falls further behind than the event ring
// keeps is told it lags and closed, and its client, resuming, is told which
// events it missed.
func (l *SyncLoop) HandleEvent(r pleg.ComputedEvent) {
	if r.Outcome == pleg.OutcomeInspectionFailed {
		// The kubelet discards these and computes them again.
		return
	}
	// Published with the view read, so that its place among the config
	// events is the view it was dispatched by.
	l.viewMu.RLock()
	e := l.dispatchPLEG(r)
	l.opts.Ring.Publish(e)
	l.viewMu.RUnlock()
	if l.opts.Published != nil {
		l.opts.Published(e)
	}
}

// dispatchPLEG returns the event of r, with the labels of the pod the
// view holds under its UID and its dispatch. viewMu must be held.
func (l *SyncLoop) dispatchPLEG(r pleg.ComputedEvent) v1alpha1.Event {
	pod := l.view.Managed(r.ID, r.PodNamespace, r.PodName)
	var labels map[string]string
	if pod != nil {
		labels = pod.Labels
	}
	e := plegEvent(r, labels)
	l.opts.Dispatcher.PLEG(r, pod).SetOn(&e)
	return e
}

// List returns the view's pods, sorted (SortSourced), shared with the view.
func (l *SyncLoop) List() []Sourced {
	l.viewMu.RLock()
	pods := l.view.List()
	l.viewMu.RUnlock()
	SortSourced(pods)
	return pods
}

// Snapshot returns the view's pods, sorted, at the ring's last event,
// which the view's lock orders with them.
func (l *SyncLoop) Snapshot() (uint64, []Sourced) {
	l.viewMu.RLock()
	seq := l.opts.Ring.LastSeq()
	pods := l.view.List()
	l.viewMu.RUnlock()
	SortSourced(pods)
	return seq, pods
}

// Pod returns the view's pod with the UID (View.Get) and the view's pods
// of its namespace and name, which alone can be its mirror pod.
func (l *SyncLoop) Pod(uid types.UID) (p Sourced, sameName []Sourced, ok bool) {
	l.viewMu.RLock()
	defer l.viewMu.RUnlock()
	p, ok = l.view.Get(uid)
	if ok {
		sameName = l.view.Named(p.Pod.Namespace, p.Pod.Name)
	}
	return p, sameName, ok
}
