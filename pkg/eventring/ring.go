package eventring

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// DefaultCapacity is how many events the ring keeps for resuming streams.
const DefaultCapacity = 10000

// Ring numbers an agent's events in one sequence and keeps the latest of
// them, from which every stream reads at its own pace; the package comment
// lists what it guarantees. A Ring is safe for concurrent use.
type Ring struct {
	epoch string
	now   func() time.Time

	mu    sync.RWMutex
	slots []entry
	first uint64 // sequence number of the oldest event kept, 0 when empty
	last  uint64 // sequence number of the newest event
	wake  chan struct{}
	// evicted marks, for each second in which events were evicted, the
	// first of them, oldest first; it holds at most maxEvictionMarks, and
	// marksTrimmed says older marks were dropped.
	evicted      []evictionMark
	marksTrimmed bool
	// sink, when set, takes every event published.
	sink Sink
}

// maxEvictionMarks bounds the seconds of evicted events the ring remembers
// for streams that start at a time: over an hour of continuous eviction.
const maxEvictionMarks = 4096

// evictionMark is the first evicted event published in one second.
type evictionMark struct {
	second int64
	seq    uint64
}

// entry is an event and its stream line; neither changes once published.
type entry struct {
	event *v1alpha1.Event
	line  []byte
}

// New returns a ring that keeps the last capacity events (DefaultCapacity
// when capacity is not positive). now stamps the events that have no time,
// and the ring's epoch; time.Now when nil.
func New(capacity int, now func() time.Time) *Ring {
	if now == nil {
		now = time.Now
	}
	return NewWithEpoch(capacity, strconv.FormatInt(now().UnixNano(), 36), now)
}

// NewWithEpoch returns a ring as New does, whose epoch is the one given:
// for a fake agent, whose tests name its processes.
func NewWithEpoch(capacity int, epoch string, now func() time.Time) *Ring {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	if now == nil {
		now = time.Now
	}
	return &Ring{
		epoch: epoch,
		now:   now,
		slots: make([]entry, capacity),
		wake:  make(chan struct{}),
	}
}

// Epoch names the ring's numbering in the stream lines: the time New made
// the ring, so it differs from one agent process to the next, or the one
// NewWithEpoch was given.
func (r *Ring) Epoch() string { return r.epoch }

// Publish assigns the event the next sequence number (and the current time
// when it has none), keeps it, wakes the readers and returns the number.
func (r *Ring) Publish(e v1alpha1.Event) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last++
	e.Seq = r.last
	if e.Time.IsZero() {
		e.Time = metav1.NewMicroTime(r.now())
	}
	slot := &r.slots[int(e.Seq%uint64(len(r.slots)))]
	if slot.event != nil {
		r.markEviction(slot.event)
	}
	*slot = entry{event: &e, line: encodeLine(r.epoch, e)}
	if r.sink != nil {
		r.sink.Append(slot.event, slot.line)
	}
	if r.first == 0 {
		r.first = 1
	}
	if r.last-r.first >= uint64(len(r.slots)) {
		r.first = r.last - uint64(len(r.slots)) + 1
	}
	close(r.wake)
	r.wake = make(chan struct{})
	return e.Seq
}

// markEviction notes an event about to be evicted, so that SeqAt can tell
// whether a time lies among evicted events. A mark is added only for a
// second later than the last mark's.
func (r *Ring) markEviction(e *v1alpha1.Event) {
	sec := e.Time.Unix()
	if n := len(r.evicted); n > 0 && r.evicted[n-1].second >= sec {
		return
	}
	if len(r.evicted) == maxEvictionMarks {
		r.evicted = append(r.evicted[:0], r.evicted[1:]...)
		r.marksTrimmed = true
	}
	r.evicted = append(r.evicted, evictionMark{second: sec, seq: e.Seq})
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
func (r *Ring) LastSeq() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.last
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

// Bound drops what b holds after the sequence number until.
func (b *Batch) Bound(until uint64) {
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

// Read fills b with up to max events (max must be positive) after the
// sequence number after. It reuses b's slices, so that a stream reading again and again allocates
// nothing; what an earlier Read put in b is gone.
func (r *Ring) Read(b *Batch, after uint64, max int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	// Entries past the new length must not keep evicted events alive.
	clear(b.Events)
	clear(b.Lines)
	*b = Batch{Events: b.Events[:0], Lines: b.Lines[:0], Wake: r.wake}
	if after >= r.last {
		return
	}
	from := after + 1
	if from < r.first {
		b.MissedFrom, b.MissedTo = from, r.first-1
		from = r.first
	}
	n := min(r.last-from+1, uint64(max))
	for seq := from; seq < from+n; seq++ {
		e := &r.slots[int(seq%uint64(len(r.slots)))]
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
func (r *Ring) SeqAt(t time.Time) uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.first == 0 {
		return r.last
	}
	// The marks' seconds only grow: the first at or after t's second is
	// the first evicted event that may be at or after t.
	sec := t.Unix()
	for i, m := range r.evicted {
		if m.second < sec {
			continue
		}
		if i == 0 && r.marksTrimmed {
			// Events before the oldest mark may be after t too.
			return 0
		}
		return m.seq - 1
	}
	return r.scanFrom(t)
}

// scanFrom returns the sequence number before the first kept event at or
// after t, or the newest when there is none.
func (r *Ring) scanFrom(t time.Time) uint64 {
	for seq := r.first; seq <= r.last; seq++ {
		if !r.slots[int(seq%uint64(len(r.slots)))].event.Time.Time.Before(t) {
			return seq - 1
		}
	}
	return r.last
}

// TailFrom returns the sequence number after which the last n events of
// after+1..upto that match begin, or after when fewer of those the ring
// keeps match.
func (r *Ring) TailFrom(after, upto uint64, n int, match func(*v1alpha1.Event) bool) uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.first == 0 || n <= 0 {
		return after
	}
	upto = min(upto, r.last)
	for seq := upto; seq > after && seq >= r.first; seq-- {
		if match(r.slots[int(seq%uint64(len(r.slots)))].event) {
			if n--; n == 0 {
				return seq - 1
			}
		}
	}
	return after
}
