package fakeagent

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// ringLocked returns the event ring of the agent's process, made with
// Capacity at its first use. Call it locked.
func (a *Agent) ringLocked() *eventring.Ring {
	if a.ring == nil {
		a.ring = eventring.NewWithEpoch(a.Capacity, "epoch-"+strconv.Itoa(a.epochs), nil)
	}
	return a.ring
}

// eventLine is how the line of an event message begins.
var eventLine = []byte(`{"type":"` + v1alpha1.MessageEvent + `"`)

// errMute ends a muted stream once its client hangs up.
var errMute = errors.New("the stream is mute")

// streamWriter is what the agent's stream (serve.Stream) writes to in the
// fake: it signals StreamStarted at the stream's first flush, which comes
// once the stream's start is set (a snapshot stream's once its snapshot is
// written), so that what a test publishes after the signal is streamed.
// The fake's faults come on top: a stream that is answered takes
// DropNextStreamAfter's count, and breaks the connection after that many
// event lines, as a crashing agent or a broken network would; a mute one
// (FaultMute) writes nothing after its first flush (its opening messages)
// until the client hangs up.
type streamWriter struct {
	http.ResponseWriter
	a    *Agent
	mute bool
	done <-chan struct{}

	// events is how many event lines to let through before breaking the
	// connection, none when not positive.
	events  int
	flushed bool
	// line is the start of the line being written, up to len(eventLine).
	line []byte
}

// streamWriter returns the writer of a stream request to w.
func (a *Agent) streamWriter(w http.ResponseWriter, r *http.Request, mute bool) *streamWriter {
	return &streamWriter{ResponseWriter: w, a: a, mute: mute, done: r.Context().Done()}
}

// WriteHeader takes DropNextStreamAfter's count for a stream that is
// answered.
func (w *streamWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		w.a.mu.Lock()
		w.events, w.a.dropAfter = w.a.dropAfter, 0
		w.a.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes p, and breaks the connection after the last event line it
// lets through.
func (w *streamWriter) Write(p []byte) (int, error) {
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
func (w *streamWriter) noteLine(part []byte) {
	need := len(eventLine) - len(w.line)
	w.line = append(w.line, part[:min(need, len(part))]...)
}

// FlushError flushes what was written, but nothing of a mute stream after
// its first flush, and signals StreamStarted at the first.
func (w *streamWriter) FlushError() error {
	if w.flushed {
		if w.mute {
			return nil
		}
		return http.NewResponseController(w.ResponseWriter).Flush()
	}
	w.flushed = true
	err := http.NewResponseController(w.ResponseWriter).Flush()
	select {
	case w.a.streamCh <- struct{}{}:
	default:
	}
	return err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
