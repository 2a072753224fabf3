package serve

import (
	"net/http"
	"time"
)

// SnapshotChunkTimeout is how long each listWriteSize bytes of a snapshot
// may take to write: a client that reads a snapshot slower than that
// (16 KiB/s) is cut off, and gives its snapshot slot back, within
// SnapshotChunkTimeout of falling behind rather than at the answer's
// WriteTimeout.
const SnapshotChunkTimeout = 2 * time.Second

// WithMinRate serves a snapshot at a minimum rate: each write to the
// client gets SnapshotChunkTimeout per listWriteSize bytes (at least one),
// never past WriteTimeout after the request began.
func WithMinRate(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		end := time.Now().Add(WriteTimeout)
		h(&minRateWriter{ResponseWriter: w, rc: http.NewResponseController(w), end: end}, r)
	}
}

// minRateWriter sets the write deadline of each write by its size.
type minRateWriter struct {
	http.ResponseWriter
	rc  *http.ResponseController
	end time.Time
}

// Write writes p with SnapshotChunkTimeout per listWriteSize bytes of it.
func (w *minRateWriter) Write(p []byte) (int, error) {
	chunks := time.Duration(max(1, (len(p)+listWriteSize-1)/listWriteSize))
	_ = w.rc.SetWriteDeadline(minTime(time.Now().Add(chunks*SnapshotChunkTimeout), w.end))
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *minRateWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// snapshotDeadline gives the next write of a stream's snapshot (at most
// listWriteSize bytes) SnapshotChunkTimeout.
func snapshotDeadline(rc *http.ResponseController) func() {
	return func() { _ = rc.SetWriteDeadline(time.Now().Add(SnapshotChunkTimeout)) }
}

// minTime returns the earlier of two times.
func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
