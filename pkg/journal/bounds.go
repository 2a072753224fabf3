package journal

import (
	"encoding/binary"
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bounds that drop events, as Stats.Dropped and the metrics name them.
const (
	// BoundSize dropped the oldest events to keep the records within
	// Options.MaxBytes.
	BoundSize = "size"
	// BoundAge dropped events older than Options.MaxAge.
	BoundAge = "age"
	// BoundBacklog dropped new events while the writer was maxPending
	// events behind.
	BoundBacklog = "backlog"
)

// trim is what one commit's bounds dropped.
type trim struct {
	bySize, byAge int
	bytes         int64
	// first and oldest are the oldest event kept afterwards, when any
	// was dropped.
	first  uint64
	oldest time.Time
}

// trim drops the oldest events of the store, which held held bytes
// before adding added, until the rest are within the bounds at now.
func (j *Journal) trim(events *bolt.Bucket, held, added int64, now time.Time) (trim, error) {
	var t trim
	total := held + added
	cutoff := now.Add(-j.opts.MaxAge)
	c := events.Cursor()
	k, v := c.First()
	for k != nil {
		size := int64(len(k) + len(v))
		switch {
		case total-t.bytes > j.opts.MaxBytes:
			t.bySize++
		case lineTime(v).Before(cutoff):
			t.byAge++
		default:
			if t.bySize+t.byAge > 0 {
				t.first, t.oldest = binary.BigEndian.Uint64(k), lineTime(v)
			}
			return t, nil
		}
		if err := c.Delete(); err != nil {
			return t, err
		}
		t.bytes += size
		// A cursor's Next after its Delete may skip a key: start over.
		k, v = c.First()
	}
	return t, nil
}

// applyTrim counts what a committed trim dropped; j.mu is held.
func (j *Journal) applyTrim(t trim) {
	n := t.bySize + t.byAge
	if n == 0 {
		return
	}
	j.stats.Dropped[BoundSize] += uint64(t.bySize)
	j.stats.Dropped[BoundAge] += uint64(t.byAge)
	j.stats.Events -= n
	j.stats.Bytes -= t.bytes
	j.stats.FirstSeq, j.stats.Oldest = t.first, t.oldest
	if j.stats.Events == 0 {
		j.stats.FirstSeq, j.stats.Oldest = 0, time.Time{}
	}
}

// lineTime returns the time of the event a stored stream line carries,
// the zero time when it has none.
func lineTime(line []byte) time.Time {
	var m struct {
		Event struct {
			Time metav1.MicroTime `json:"time"`
		} `json:"event"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return time.Time{}
	}
	return m.Event.Time.Time
}
