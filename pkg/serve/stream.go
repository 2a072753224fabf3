package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// Stream limits.
const (
	// streamBatch is how many events a stream takes from the event ring at once.
	streamBatch = 256
	// streamWriteSize is the most a stream buffers before it writes.
	streamWriteSize = 64 << 10
	// streamCoalesce is the shortest time between two reads of a stream
	// from the event ring while events keep coming.
	streamCoalesce = 10 * time.Millisecond
)

// DefaultStreamWriteTimeout is how long one write to a stream may block
// before the client counts as gone.
const DefaultStreamWriteTimeout = 10 * time.Second

// ErrLagging ends a stream whose next event was evicted while it streamed.
var ErrLagging = errors.New("stream fell behind")

// StreamOptions say what an event stream reads and how it writes.
type StreamOptions struct {
	// Ring is the event sequence the stream reads; its epoch names the
	// stream's sequence numbers.
	Ring *eventring.Ring
	// History, when set, holds events older than Ring keeps: a stream
	// that resumes from them reads them there, and is told of a gap only
	// for what neither holds.
	History History
	// Heartbeat is the interval of the heartbeats that say where the
	// stream is while no event comes.
	Heartbeat time.Duration
	// WriteTimeout bounds one write to the client
	// (DefaultStreamWriteTimeout when zero): a client that takes longer is
	// gone.
	WriteTimeout time.Duration
	// Stopping, when closed, ends the stream.
	Stopping <-chan struct{}
	// Snapshot gives a stream that starts with a snapshot its start: the
	// ring's last sequence number and the pods that q keeps at that
	// sequence number (their list without items, and the items one by
	// one).
	Snapshot func(q *v1alpha1.PodQuery) (seq uint64, head v1alpha1.PodList, items func(yield func(v1alpha1.PodInfo) error) error)
	// SnapshotWritten, when set, is called once the snapshot is written,
	// or failed to be.
	SnapshotWritten func()
}

// ParseStreamQuery returns the query of an event stream request (see
// v1alpha1.ParseEventQuery); a since ahead of ring's last event in its own
// epoch is an error too.
func ParseStreamQuery(v url.Values, ring *eventring.Ring) (v1alpha1.EventQuery, error) {
	q, err := v1alpha1.ParseEventQuery(v)
	if err != nil {
		return q, err
	}
	return q, checkAhead(q, ring.LastSeq(), ring.Epoch())
}

// Stream answers an event stream request with the events of o.Ring that q
// asks for, as newline-delimited JSON (v1alpha1.StreamMessage): it writes
// the stream until the client goes, o.Stopping closes, the client falls
// behind (ErrLagging) or the stream reaches q's Until. API serves its
// streams with it.
func Stream(w http.ResponseWriter, r *http.Request, q *v1alpha1.EventQuery, o StreamOptions) error {
	timeout := o.WriteTimeout
	if timeout == 0 {
		timeout = DefaultStreamWriteTimeout
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// Proxies in front of the agent must not buffer the stream.
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	s := &stream{w: w, rc: rc, enc: json.NewEncoder(w), epoch: o.Ring.Epoch(), timeout: timeout}
	return s.serve(r, q, o)
}

// stream writes messages to one client.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	enc     *json.Encoder
	epoch   string
	timeout time.Duration
	// batch and buf (at most streamWriteSize) are reused from one read of
	// the event ring to the next, and history from one read of the history
	// to the next.
	batch, history eventring.Batch
	buf            []byte
}

// send writes a message other than a published event.
func (s *stream) send(m v1alpha1.StreamMessage) error {
	m.Epoch = s.epoch
	if m.Time.IsZero() {
		m.Time = metav1.NowMicro()
	}
	s.extendDeadline()
	return s.enc.Encode(m)
}

// sendSnapshot writes a snapshot message, its pods one at a time (see
// WriteWithItems), so that a client that reads it slowly holds no encoding
// of the whole snapshot, at the minimum rate of a snapshot (see
// SnapshotChunkTimeout).
func (s *stream) sendSnapshot(seq uint64, head v1alpha1.PodList, each func(yield func(v1alpha1.PodInfo) error) error) error {
	doc, err := json.Marshal(v1alpha1.StreamMessage{Type: v1alpha1.MessageSnapshot, Epoch: s.epoch, Seq: seq, Snapshot: &head, Time: metav1.NowMicro()})
	if err != nil {
		return fmt.Errorf("encoding the snapshot: %w", err)
	}
	if err := s.writeBuffered(); err != nil {
		return err
	}
	return WriteWithItems(s.w, snapshotDeadline(s.rc), append(doc, '\n'), "", each)
}

// sendEvents writes the events of b: their lines as the event ring (or
// the history) encoded them, unless this stream's filter changed an event. The lines go out in
// writes of up to streamWriteSize rather than one by one, which keeps a
// busy stream's system calls few and its buffer small.
func (s *stream) sendEvents(q *v1alpha1.EventQuery, b *eventring.Batch) (cursor uint64, err error) {
	for i, e := range b.Events {
		cursor = e.Seq
		fe, keep, trimmed := q.Match(*e)
		switch {
		case !keep:
		case trimmed:
			line, merr := json.Marshal(v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Epoch: s.epoch, Event: &fe, Time: fe.Time})
			if merr != nil {
				return cursor, fmt.Errorf("encoding event %d: %w", fe.Seq, merr)
			}
			err = s.writeLine(append(line, '\n'))
		default:
			err = s.writeLine(b.Lines[i])
		}
		if err != nil {
			return cursor, err
		}
	}
	return cursor, s.writeBuffered()
}

// writeLine adds a line to the stream's buffer, writing the buffer first
// when the line would overfill it; a line as large as the buffer is written
// on its own, uncopied.
func (s *stream) writeLine(line []byte) error {
	if len(s.buf)+len(line) > streamWriteSize {
		if err := s.writeBuffered(); err != nil {
			return err
		}
	}
	if len(line) >= streamWriteSize {
		s.extendDeadline()
		_, err := s.w.Write(line)
		return err
	}
	s.buf = append(s.buf, line...)
	return nil
}

// writeBuffered writes what the stream's buffer holds.
func (s *stream) writeBuffered() error {
	if len(s.buf) == 0 {
		return nil
	}
	s.extendDeadline()
	_, err := s.w.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}

func (s *stream) flush() error {
	s.extendDeadline()
	return s.rc.Flush()
}

// extendDeadline gives the next writes the stream's write timeout.
func (s *stream) extendDeadline() {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
}

// serve writes the stream (see Stream).
func (s *stream) serve(r *http.Request, q *v1alpha1.EventQuery, o StreamOptions) error {
	ring := o.Ring
	now := time.Now()
	var cursor uint64
	resuming := true
	// opening is the heartbeat that says where the stream starts (and
	// ends), when it needs one.
	var opening *v1alpha1.StreamMessage
	switch {
	case q.Since != nil && !q.Since.IsAge && q.Epoch != "" && q.Epoch != s.epoch:
		// The client's sequence numbers are another agent process's.
		if err := s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageReset}); err != nil {
			return err
		}
	case q.Snapshot:
		// The snapshot holds the pods the query's pod filter keeps.
		pods := q.PodQuery()
		var head v1alpha1.PodList
		var items func(yield func(v1alpha1.PodInfo) error) error
		cursor, head, items = o.Snapshot(&pods)
		err := s.sendSnapshot(cursor, head, items)
		if o.SnapshotWritten != nil {
			o.SnapshotWritten()
		}
		if err != nil {
			return err
		}
		resuming = false
	case q.Since != nil:
		cursor = startSeq(o, *q.Since, now)
	default:
		// A plain stream starts now, and says where now is, so that a
		// client whose connection drops before the first event resumes
		// without a silent loss.
		cursor = ring.LastSeq()
		resuming = false
		opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat}
	}
	until := uint64(math.MaxUint64)
	if q.Until != nil {
		until = startSeq(o, *q.Until, now)
		opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat, Until: &until}
	}
	if q.Tail > 0 && !q.Snapshot {
		// The tail's events are history, all of it when no since bounds
		// it: what the event ring lost of them is a gap.
		after := cursor
		if q.Since == nil {
			after = 0
		}
		cursor = ring.TailFrom(after, min(until, ring.LastSeq()), q.Tail, func(e *v1alpha1.Event) bool {
			_, keep, _ := q.Match(*e)
			return keep
		})
		resuming = true
		if opening == nil {
			opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat}
		}
	}
	if opening != nil {
		opening.Seq = cursor
		if err := s.send(*opening); err != nil {
			return err
		}
	}
	if err := s.flush(); err != nil {
		return err
	}

	heartbeat := time.NewTicker(o.Heartbeat)
	defer heartbeat.Stop()
	var lastRead time.Time
	for {
		if cursor >= until {
			if err := s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageEnd, Seq: until}); err != nil {
				return err
			}
			return s.flush()
		}
		lastRead = time.Now()
		ring.Read(&s.batch, cursor, streamBatch)
		b := &s.batch
		b.Bound(until)
		if b.MissedTo != 0 && resuming && o.History != nil {
			// The client asked for events older than the buffer keeps:
			// the history has them, or says which it lacks.
			var err error
			if cursor, err = s.sendHistory(r, q, o.History, cursor, b.MissedTo); err != nil {
				return err
			}
			if err := s.flush(); err != nil {
				return err
			}
			continue
		}
		if b.MissedTo != 0 {
			if !resuming {
				_ = s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageLagging, Seq: cursor})
				_ = s.flush()
				return ErrLagging
			}
			// The client asked for events older than the buffer keeps.
			if err := s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: b.MissedFrom, To: b.MissedTo}); err != nil {
				return err
			}
			cursor = b.MissedTo
		}
		resuming = false
		if len(b.Events) > 0 {
			var err error
			if cursor, err = s.sendEvents(q, b); err != nil {
				return err
			}
		}
		if len(b.Events) > 0 || b.MissedTo != 0 {
			if err := s.flush(); err != nil {
				return err
			}
			if len(b.Events) == streamBatch || cursor >= until {
				continue
			}
		}
		select {
		case <-b.Wake:
			// Under a burst of events, read them in batches rather than
			// waking for each; an idle stream reads at once.
			if wait := streamCoalesce - time.Since(lastRead); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-r.Context().Done():
					t.Stop()
					return r.Context().Err()
				case <-o.Stopping:
					t.Stop()
					return nil
				}
			}
		case <-heartbeat.C:
			if err := s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat, Seq: cursor}); err != nil {
				return err
			}
			if err := s.flush(); err != nil {
				return err
			}
		case <-r.Context().Done():
			return r.Context().Err()
		case <-o.Stopping:
			return nil
		}
	}
}

// startSeq returns the sequence number after which a stream bounded by m
// starts (or ends): seqOf over the ring, or over the history when m is a
// time older than the ring's oldest event.
func startSeq(o StreamOptions, m v1alpha1.Mark, now time.Time) uint64 {
	seq := seqOf(o.Ring, m, now)
	if o.History == nil || !m.IsAge || m.Age == 0 || seq+1 >= o.Ring.FirstSeq() {
		return seq
	}
	if h, err := o.History.SeqAt(now.Add(-m.Age)); err == nil {
		return h
	}
	return seq
}

// sendHistory writes the events after cursor up to upto from h, a gap
// message for those h lacks, and returns the new cursor: upto.
func (s *stream) sendHistory(r *http.Request, q *v1alpha1.EventQuery, h History, cursor, upto uint64) (uint64, error) {
	for cursor < upto {
		b := &s.history
		if err := h.Read(b, cursor, streamBatch); err != nil {
			klog.FromContext(r.Context()).Error(err, "Reading the history of a stream; its events count as missed", "from", cursor+1, "to", upto)
			*b = eventring.Batch{MissedFrom: cursor + 1, MissedTo: upto}
		}
		b.Bound(upto)
		if b.MissedTo == 0 && len(b.Events) == 0 {
			// Nothing more in the history: the rest is missed.
			b.MissedFrom, b.MissedTo = cursor+1, upto
		}
		if b.MissedTo != 0 {
			if err := s.send(v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: b.MissedFrom, To: b.MissedTo}); err != nil {
				return cursor, err
			}
			cursor = b.MissedTo
		}
		if len(b.Events) > 0 {
			var err error
			if cursor, err = s.sendEvents(q, b); err != nil {
				return cursor, err
			}
		}
	}
	return cursor, nil
}
