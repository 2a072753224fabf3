package agent

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// plegPublisher puts each event the PLEG computes on the event ring while the relist
// runs, ContainerChanged marked as not sent by the kubelet. Publishing never
// waits for a stream, so the relist is not slowed by readers and no event is
// dropped on the way to the event ring: a stream that falls further behind than the
// event ring keeps is told it lags and closed, and its client, resuming, is told
// which events it missed.
type plegPublisher struct {
	ring    *eventring.Ring
	metrics *metrics
	// labels returns the labels of the configured pod with a UID.
	labels func(types.UID) map[string]string
}

// HandleEvent implements pleg.EventHandler.
func (p plegPublisher) HandleEvent(r pleg.ComputedEvent) {
	if r.Outcome == pleg.OutcomeInspectionFailed {
		// The kubelet discards these and computes them again.
		return
	}
	p.ring.Publish(plegEvent(r, p.labels(r.ID)))
	p.metrics.plegEvent(r)
}
