package syncloop

import (
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// Redispatch returns the recorded PLEG event e as the sync loop would
// dispatch it now, against its view: the labels of the pod the view
// holds under its UID, and its handler or why it is ignored. What the PLEG
// found is taken as recorded: the event's type, whether the kubelet sends
// it, and whether its full channel dropped it. Its Removes and
// RemovesUnknown are left as recorded: they come from the runtime's
// state, which a recording does not hold.
func (l *SyncLoop) Redispatch(e v1alpha1.Event) v1alpha1.Event {
	typ := pleg.EventType(e.Type)
	r := pleg.ComputedEvent{PodLifecycleEvent: pleg.PodLifecycleEvent{
		ID: e.PodUID, Type: typ, Data: e.Data, KubeletSends: typ.KubeletSends(), Sandbox: e.Sandbox,
		PodName: e.PodName, PodNamespace: e.Namespace, ContainerName: e.ContainerName, ExitCode: e.ExitCode, Time: e.Time.Time,
	}}
	if r.KubeletSends && e.KubeletSends != nil && !*e.KubeletSends {
		r.Outcome = pleg.OutcomeDropped
	}
	l.viewMu.RLock()
	out := l.dispatchPLEG(r)
	l.viewMu.RUnlock()
	out.Seq, out.Removes, out.RemovesUnknown = e.Seq, e.Removes, e.RemovesUnknown
	return out
}
