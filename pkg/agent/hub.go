package agent

import (
	"encoding/json"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// DefaultEventBuffer is how many events the hub keeps for resuming streams.
const DefaultEventBuffer = 10000

// Hub numbers the agent's events in one sequence and keeps the latest of them
// in a ring, from which every stream reads at its own pace. Each event is
// encoded once, as the stream line that carries it, when it is published.
// Publishing never waits for a reader: a reader that falls so far behind
// that its next event was evicted learns so from Read.
type Hub struct {
	epoch string
	now   func() time.Time

	mu    sync.RWMutex
	ring  []hubEntry
	first uint64 // sequence number of the oldest event kept, 0 when empty
	last  uint64 // sequence number of the newest event
	wake  chan struct{}
	// evicted marks, for each second in which events were evicted, the
	// first of them, oldest first; it holds at most maxEvictionMarks, and
	// marksTrimmed says older marks were dropped.
	evicted      []evictionMark
	marksTrimmed bool
}

// maxEvictionMarks bounds the seconds of evicted events the hub remembers
// for streams that start at a time: over an hour of continuous eviction.
const maxEvictionMarks = 4096

// evictionMark is the first evicted event published in one second.
type evictionMark struct {
	second int64
	seq    uint64
}

// hubEntry is an event and its stream line; neither changes once published.
type hubEntry struct {
	event *v1alpha1.Event
	line  []byte
}

// NewHub returns a hub that keeps the last capacity events; epoch names the
// agent process in the stream lines.
func NewHub(capacity int, epoch string, now func() time.Time) *Hub {
	if capacity <= 0 {
		capacity = DefaultEventBuffer
	}
	if now == nil {
		now = time.Now
	}
	return &Hub{epoch: epoch, now: now, ring: make([]hubEntry, capacity), wake: make(chan struct{})}
}

// Publish assigns the event the next sequence number (and the current time
// when it has none), keeps it, wakes the readers and returns the number.
func (h *Hub) Publish(e v1alpha1.Event) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last++
	e.Seq = h.last
	if e.Time.IsZero() {
		e.Time = metav1.NewMicroTime(h.now())
	}
	slot := &h.ring[int(e.Seq%uint64(len(h.ring)))]
	if slot.event != nil {
		h.markEviction(slot.event)
	}
	*slot = hubEntry{event: &e, line: encodeLine(h.epoch, e)}
	if h.first == 0 {
		h.first = 1
	}
	if h.last-h.first >= uint64(len(h.ring)) {
		h.first = h.last - uint64(len(h.ring)) + 1
	}
	close(h.wake)
	h.wake = make(chan struct{})
	return e.Seq
}

// markEviction notes an event about to be evicted, so that SeqAt can tell
// whether a time lies among evicted events. A mark is added only for a
// second later than the last mark's.
func (h *Hub) markEviction(e *v1alpha1.Event) {
	sec := e.Time.Unix()
	if n := len(h.evicted); n > 0 && h.evicted[n-1].second >= sec {
		return
	}
	if len(h.evicted) == maxEvictionMarks {
		h.evicted = append(h.evicted[:0], h.evicted[1:]...)
		h.marksTrimmed = true
	}
	h.evicted = append(h.evicted, evictionMark{second: sec, seq: e.Seq})
}

// encodeLine returns the stream line that carries an event.
func encodeLine(epoch string, e v1alpha1.Event) []byte {
	line, err := json.Marshal(v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Epoch: epoch, Event: &e, Time: e.Time})
	if err != nil {
		// An Event holds only strings, numbers and times.
		panic("encoding an event: " + err.Error())
	}
	return append(line, '\n')
}

// LastSeq returns the sequence number of the newest event, 0 before any.
func (h *Hub) LastSeq() uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.last
}

// Batch is what one Read returns.
type Batch struct {
	// Events follow the cursor without holes, oldest first; Lines holds
	// the stream line of each. Both are shared: callers must not modify them.
	Events []*v1alpha1.Event
	Lines  [][]byte
	// MissedFrom and MissedTo, when MissedTo is not 0, are the events after
	// the cursor that were evicted before this read: Events then starts at
	// MissedTo+1.
	MissedFrom, MissedTo uint64
	// Wake is closed when an event is published after this read.
	Wake <-chan struct{}
}

// bound drops what b holds after the sequence number until.
func (b *Batch) bound(until uint64) {
	if b.MissedTo > until {
		b.MissedTo = until
	}
	if b.MissedFrom > until {
		b.MissedFrom, b.MissedTo = 0, 0
	}
	n := len(b.Events)
	for n > 0 && b.Events[n-1].Seq > until {
		n--
	}
	b.Events, b.Lines = b.Events[:n], b.Lines[:n]
}

// Read fills b with up to max events after the sequence number after. It
// reuses b's slices, so that a stream reading again and again allocates
// nothing; what an earlier Read put in b is gone.
func (h *Hub) Read(b *Batch, after uint64, max int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	// Entries past the new length must not keep evicted events alive.
	clear(b.Events)
	clear(b.Lines)
	*b = Batch{Events: b.Events[:0], Lines: b.Lines[:0], Wake: h.wake}
	if after >= h.last {
		return
	}
	from := after + 1
	if from < h.first {
		b.MissedFrom, b.MissedTo = from, h.first-1
		from = h.first
	}
	n := min(h.last-from+1, uint64(max))
	for seq := from; seq < from+n; seq++ {
		e := &h.ring[int(seq%uint64(len(h.ring)))]
		b.Events = append(b.Events, e.event)
		b.Lines = append(b.Lines, e.line)
	}
}

// SeqAt returns the sequence number after which the events published at or
// after t begin, for streams that start at a time. When some of those events
// were evicted, the number returned lies before the oldest event kept, so
// that Read reports them missed. Evicted events are remembered by the second,
// and event times need not follow sequence numbers (a PLEG event carries the
// time of its relist), so the events a stream gets from t on may include a
// few from before t, but never leave one after t out unannounced.
func (h *Hub) SeqAt(t time.Time) uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.first == 0 {
		return h.last
	}
	// The marks' seconds only grow: the first at or after t's second is
	// the first evicted event that may be at or after t.
	sec := t.Unix()
	for i, m := range h.evicted {
		if m.second < sec {
			continue
		}
		if i == 0 && h.marksTrimmed {
			// Events before the oldest mark may be after t too.
			return 0
		}
		return m.seq - 1
	}
	return h.scanFrom(t)
}

// scanFrom returns the sequence number before the first kept event at or
// after t, or the newest when there is none.
func (h *Hub) scanFrom(t time.Time) uint64 {
	for seq := h.first; seq <= h.last; seq++ {
		if !h.ring[int(seq%uint64(len(h.ring)))].event.Time.Time.Before(t) {
			return seq - 1
		}
	}
	return h.last
}

// TailFrom returns the sequence number after which the last n events of
// after+1..upto that match begin, or after when fewer of those the hub
// keeps match.
func (h *Hub) TailFrom(after, upto uint64, n int, match func(*v1alpha1.Event) bool) uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.first == 0 || n <= 0 {
		return after
	}
	upto = min(upto, h.last)
	for seq := upto; seq > after && seq >= h.first; seq-- {
		if match(h.ring[int(seq%uint64(len(h.ring)))].event) {
			if n--; n == 0 {
				return seq - 1
			}
		}
	}
	return after
}
