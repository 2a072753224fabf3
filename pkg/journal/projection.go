package journal

import (
	"encoding/binary"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// keyExposePodSpecs records, in the meta bucket, whether the journal's
// lines were written by an agent serving pod specs in full
// (Options.ExposePodSpecs).
var keyExposePodSpecs = []byte("exposePodSpecs")

// discardExposed empties events when its lines were written with pod specs
// exposed (old, the meta bucket found) and this agent does not expose
// them: it would otherwise serve what its own settings withhold. It
// returns the fresh bucket and how many events it dropped. The numbering
// goes on after the newest event dropped (keyLastSeq), in the same epoch,
// so that a stream resuming in it is told of the dropped ones as a gap.
// The key holds the last writer's setting only, so every event goes, also
// those an earlier writer wrote without exposure.
//
// A journal written with less exposure than now keeps its events: they
// show no more than this agent would. A journal without the key was
// written before the key existed, which no release did: it counts as
// written under the current setting.
func (j *Journal) discardExposed(tx *bolt.Tx, meta, events *bolt.Bucket, old map[string][]byte) (*bolt.Bucket, int, error) {
	was, ok := old[string(keyExposePodSpecs)]
	if err := meta.Put(keyExposePodSpecs, []byte(strconv.FormatBool(j.opts.ExposePodSpecs))); err != nil {
		return nil, 0, err
	}
	if !ok || j.opts.ExposePodSpecs || string(was) != strconv.FormatBool(true) {
		return events, 0, nil
	}
	var n int
	var last []byte
	c := events.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
		last = slices.Clone(k)
	}
	if n == 0 {
		return events, 0, nil
	}
	if b := old[string(keyLastSeq)]; len(b) == 8 && binary.BigEndian.Uint64(b) > binary.BigEndian.Uint64(last) {
		last = b
	}
	if err := meta.Put(keyLastSeq, last); err != nil {
		return nil, 0, err
	}
	old[string(keyLastSeq)] = last
	if err := tx.DeleteBucket(bucketEvents); err != nil {
		return nil, 0, err
	}
	events, err := tx.CreateBucket(bucketEvents)
	return events, n, err
}
