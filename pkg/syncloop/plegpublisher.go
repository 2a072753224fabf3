package syncloop

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// PLEGPublisher puts each event the PLEG computes on the event ring while the relist
// runs, ContainerChanged marked as not sent by the kubelet. Publishing never
// waits for a stream, so the relist is not slowed by readers and no event is
// dropped on the way to the event ring: a stream that falls further behind than the
// event ring keeps is told it lags and closed, and its client, resuming, is told
// which events it missed.
type PLEGPublisher struct {
	Ring *eventring.Ring
	// Published counts each published event.
	Published  func(v1alpha1.Event)
	Dispatcher Dispatcher
	// Pod returns the pod the kubelet's pod manager holds under a runtime
	// pod's UID, namespace and name, nil for none.
	Pod func(uid types.UID, namespace, name string) *v1.Pod
}

// HandleEvent implements pleg.EventHandler.
func (p *PLEGPublisher) HandleEvent(r pleg.ComputedEvent) {
	if r.Outcome == pleg.OutcomeInspectionFailed {
		// The kubelet discards these and computes them again.
		return
	}
	pod := p.Pod(r.ID, r.PodNamespace, r.PodName)
	var labels map[string]string
	if pod != nil {
		labels = pod.Labels
	}
	e := plegEvent(r, labels)
	p.Dispatcher.PLEG(r, pod).SetOn(&e)
	p.Ring.Publish(e)
	p.Published(e)
}
