package agent

import (
	"errors"
	"net/http"

	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
)

// handleEvents streams the event sequence as newline-delimited JSON
// (serve.Stream).
func (a *Agent) handleEvents(w http.ResponseWriter, r *http.Request) {
	q, err := serve.ParseStreamQuery(r.URL.Query(), a.ring)
	if err != nil {
		serve.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	// A stream that starts with a snapshot counts as a snapshot request
	// until the snapshot is written.
	var giveSnapshot func()
	if q.Snapshot {
		var ok bool
		if giveSnapshot, ok = a.snapshots.Take(w, r); !ok {
			return
		}
		defer func() {
			if giveSnapshot != nil {
				giveSnapshot()
			}
		}()
	}
	a.metrics.subscribers.Inc()
	defer a.metrics.subscribers.Dec()
	err = serve.Stream(w, r, &q, serve.StreamOptions{
		Ring:         a.ring,
		Heartbeat:    a.cfg.Heartbeat,
		WriteTimeout: a.streamWriteTimeout,
		Stopping:     a.stopping,
		Snapshot:     a.streamSnapshot,
		SnapshotWritten: func() {
			if giveSnapshot != nil {
				giveSnapshot()
				giveSnapshot = nil
			}
		},
	})
	if errors.Is(err, serve.ErrLagging) {
		a.metrics.lagging.Inc()
	}
	klog.FromContext(r.Context()).V(3).Info("Event stream ended", "remote", r.RemoteAddr, "err", err)
}

// streamSnapshot is the start of a stream that starts with a snapshot: the
// view's pods that q keeps, at the ring's last event, which the view's
// lock orders with them.
func (a *Agent) streamSnapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	a.viewMu.Lock()
	seq := a.ring.LastSeq()
	configured := a.view.list()
	a.viewMu.Unlock()
	sortSourced(configured)
	return seq, a.podListHead(), func(yield func(v1alpha1.PodInfo) error) error {
		return a.eachPodInfo(configured, q, yield)
	}
}
