package journal

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/podsrc/podsrc/pkg/eventring"
)

// Read fills b, as eventring.Ring.Read does, with up to max events (max
// must be positive) after the sequence number after that the store holds,
// oldest first and without holes: events after after that it does not hold
// (dropped by a bound, or lost to a failed write) are b's MissedFrom to
// MissedTo, and Events stops before the next such hole. b.Wake is nil.
func (j *Journal) Read(b *eventring.Batch, after uint64, max int) error {
	clear(b.Events)
	clear(b.Lines)
	*b = eventring.Batch{Events: b.Events[:0], Lines: b.Lines[:0]}
	err := j.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		want := after + 1
		for k, v := c.Seek(seqKey(want)); k != nil && len(b.Events) < max; k, v = c.Next() {
			seq := binary.BigEndian.Uint64(k)
			if seq != want {
				if len(b.Events) > 0 {
					return nil
				}
				b.MissedFrom, b.MissedTo = want, seq-1
			}
			e, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			b.Events = append(b.Events, e)
			b.Lines = append(b.Lines, append(slices.Clone(v), '\n'))
			want = seq + 1
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading the journal %s after event %d: %w", j.path, after, err)
	}
	return nil
}

// seqSlack is how much earlier than a stream's start time an event may be
// numbered after one at or after that time (a PLEG event carries the time
// its relist started, before it was published).
const seqSlack = time.Minute

// SeqAt returns the sequence number after which the events the store holds
// from time t on begin, for streams that start at a time, as
// eventring.Ring.SeqAt does: 0 when t is at or before the oldest event held
// and older ones were dropped, so that the reader is told of them as a gap.
// Event times follow sequence numbers only roughly (up to seqSlack apart),
// so the events from there may include a few from before t.
func (j *Journal) SeqAt(t time.Time) (uint64, error) {
	var at uint64
	err := j.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		k, v := c.First()
		if k == nil {
			at = j.LastSeq()
			return nil
		}
		first := binary.BigEndian.Uint64(k)
		if !lineTime(v).Before(t) {
			// Whatever was dropped before the oldest may be after t.
			at = 0
			return nil
		}
		last, _ := c.Last()
		// The first event at or after t-seqSlack, were times in order…
		lo, hi := first, binary.BigEndian.Uint64(last)+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			k, v := c.Seek(seqKey(mid))
			if k == nil {
				hi = mid
				continue
			}
			if lineTime(v).Before(t.Add(-seqSlack)) {
				lo = binary.BigEndian.Uint64(k) + 1
			} else {
				hi = mid
			}
		}
		// …and from there, the first at or after t.
		at = hi - 1
		for k, v := c.Seek(seqKey(lo)); k != nil; k, v = c.Next() {
			if !lineTime(v).Before(t) {
				return nil
			}
			at = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading the journal %s from %s: %w", j.path, t.Format(time.RFC3339), err)
	}
	return at, nil
}

// Newest returns the newest events the store holds, up to n and without
// holes, oldest first, with their stream lines: what an agent's event ring
// starts with.
func (j *Journal) Newest(n int) (eventring.Batch, error) {
	var b eventring.Batch
	err := j.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketEvents).Cursor()
		var next uint64
		for k, v := c.Last(); k != nil && len(b.Events) < n; k, v = c.Prev() {
			seq := binary.BigEndian.Uint64(k)
			if next != 0 && seq != next-1 {
				break
			}
			e, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			b.Events = append(b.Events, e)
			b.Lines = append(b.Lines, append(slices.Clone(v), '\n'))
			next = seq
		}
		return nil
	})
	if err != nil {
		return b, fmt.Errorf("reading the journal %s: %w", j.path, err)
	}
	slices.Reverse(b.Events)
	slices.Reverse(b.Lines)
	return b, nil
}
