package fakeagent

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve"
)

// ringLocked returns the event ring of the agent's process, made with
// Capacity at its first use. Call it locked.
func (a *Agent) ringLocked() *eventring.Ring {
	if a.ring == nil {
		a.ring = eventring.NewWithEpoch(a.Capacity, "epoch-"+strconv.Itoa(a.epochs), nil)
	}
	return a.ring
}

// serveEvents serves the event stream with the agent's own code
// (serve.Stream) over the fake's event ring, so that it honors the same
// query (v1alpha1.EventQuery) with the same messages. The fake's own
// faults come on top: DropNextStreamAfter breaks the connection after that
// many events, Restart breaks the streams of the process it ends, and
// FaultMute sends the opening messages and then nothing.
func (a *Agent) serveEvents(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.queries = append(a.queries, r.URL.Query())
	ring, stopped := a.ringLocked(), a.stopped
	heartbeat, mute := a.Heartbeat, a.Fault == FaultMute
	a.mu.Unlock()
	q, err := serve.ParseStreamQuery(r.URL.Query(), ring)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, err.Error())
		return
	}
	a.mu.Lock()
	drop := a.dropAfter
	a.dropAfter = 0
	a.mu.Unlock()
	// A stream has started once its start is set: a snapshot's once it
	// is written, so that what is published after starts after it.
	started := func() {
		select {
		case a.streamCh <- struct{}{}:
		default:
		}
	}
	var snapshotWritten func()
	if q.Snapshot {
		snapshotWritten = started
	} else {
		started()
	}

	if drop > 0 || mute {
		w = &faultWriter{ResponseWriter: w, events: drop, mute: mute, done: r.Context().Done()}
	}
	_ = serve.Stream(w, r, &q, serve.StreamOptions{
		Ring:            ring,
		Heartbeat:       heartbeat,
		Stopping:        stopped,
		Snapshot:        a.snapshot,
		SnapshotWritten: snapshotWritten,
	})
	select {
	case <-stopped:
		// The process is gone; so is its stream.
		panic(http.ErrAbortHandler)
	default:
	}
}

// snapshot is the start of a stream that starts with a snapshot: the pods
// q keeps at the ring's last event.
func (a *Agent) snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	head := a.Pods
	head.Items = nil
	kept := slices.DeleteFunc(slices.Clone(a.Pods.Items), func(p v1alpha1.PodInfo) bool { return !q.Match(p) })
	return a.ringLocked().LastSeq(), head, func(yield func(v1alpha1.PodInfo) error) error {
		for _, p := range kept {
			if err := yield(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// eventLine is how the line of an event message begins.
var eventLine = []byte(`{"type":"` + v1alpha1.MessageEvent + `"`)

// errMute ends a muted stream once its client hangs up.
var errMute = errors.New("the stream is mute")

// faultWriter is a stream's writer with the fake's faults: with events
// set, it breaks the connection after that many event lines, as a crashing
// agent or a broken network would; with mute, it writes nothing after the
// stream's first flush (its opening messages) until the client hangs up.
type faultWriter struct {
	http.ResponseWriter
	events int
	mute   bool
	done   <-chan struct{}

	flushed bool
	// line is the start of the line being written, up to len(eventLine).
	line []byte
}

// Write writes p, and breaks the connection after the last event line it
// lets through.
func (w *faultWriter) Write(p []byte) (int, error) {
	if w.mute && w.flushed {
		<-w.done
		return 0, errMute
	}
	if w.events <= 0 {
		return w.ResponseWriter.Write(p)
	}
	written := 0
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n')
		if end < 0 {
			w.noteLine(p)
			n, err := w.ResponseWriter.Write(p)
			return written + n, err
		}
		w.noteLine(p[:end])
		n, err := w.ResponseWriter.Write(p[:end+1])
		written += n
		if err != nil {
			return written, err
		}
		if bytes.Equal(w.line, eventLine) {
			if w.events--; w.events == 0 {
				_ = http.NewResponseController(w.ResponseWriter).Flush()
				panic(http.ErrAbortHandler)
			}
		}
		w.line, p = w.line[:0], p[end+1:]
	}
	return written, nil
}

// noteLine keeps the start of the line being written that eventLine may
// match.
func (w *faultWriter) noteLine(part []byte) {
	need := len(eventLine) - len(w.line)
	w.line = append(w.line, part[:min(need, len(part))]...)
}

// FlushError flushes what was written, but nothing of a mute stream after
// its first flush.
func (w *faultWriter) FlushError() error {
	if w.mute && w.flushed {
		return nil
	}
	w.flushed = true
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *faultWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
