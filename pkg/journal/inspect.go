package journal

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// inspection is what inspect found in a store.
type inspection struct {
	// err says what is wrong with the store; nil when it is intact.
	err error
	// busy says another process holds the store: it was not inspected.
	busy bool
	// meta and records are what could be read of a damaged store, the
	// records in sequence order.
	meta    map[string][]byte
	records []record
}

// inspect checks the store at path, read-only: that bbolt opens it, that
// the file holds every page its meta page counts (a torn write cuts it
// short), that every record of the events bucket is readable and carries
// the event its key numbers, and bbolt's own page check. Faults on the
// memory-mapped file and bbolt's panics on a garbled page are damage, not
// a crash. When the store is damaged, it reads what it can: the records
// from the first on and from the last back, until either fails.
func inspect(path string, lockTimeout time.Duration) (in inspection) {
	// The mapped file may be shorter than its pages: a fault on it panics
	// in this goroutine, and the deferred recovers say what failed.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	open := func(freelist bool) (*bolt.DB, error) {
		db, err := guarded(func() (*bolt.DB, error) {
			return bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: lockTimeout, PreLoadFreelist: freelist})
		})
		if err != nil {
			return nil, fmt.Errorf("bbolt cannot open it: %w", err)
		}
		return db, nil
	}
	closeDB := func(db *bolt.DB) { _, _ = guarded(func() (struct{}, error) { return struct{}{}, db.Close() }) }
	// The writer will need the free page list: a damaged one is damage.
	db, err := open(true)
	if errors.Is(err, bolt.ErrTimeout) {
		// A writer holds the store's lock: that is not damage.
		in.busy = true
		return in
	}
	if err == nil {
		defer closeDB(db)
		if err = guardedCheck(db, path); err == nil {
			return in
		}
	}
	in.err = err
	if db == nil {
		// The events may be readable without the free page list.
		if db, err = open(false); err != nil {
			return in
		}
		defer closeDB(db)
	}
	in.meta, in.records = salvage(db)
	return in
}

// guardedCheck is check, with a panic as an error.
func guardedCheck(db *bolt.DB, path string) error {
	_, err := guarded(func() (struct{}, error) { return struct{}{}, check(db, path) })
	return err
}

// guarded returns what f returns, or the panic f raised as an error.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading it failed: %v", r)
		}
	}()
	return f()
}

// check returns what is wrong with an open store, nil when nothing is.
func check(db *bolt.DB, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return db.View(func(tx *bolt.Tx) error {
		if st.Size() < tx.Size() {
			return fmt.Errorf("the file has %d bytes, its pages need %d: a write was cut short", st.Size(), tx.Size())
		}
		events := tx.Bucket(bucketEvents)
		if events == nil || tx.Bucket(bucketMeta) == nil {
			return errors.New("it lacks the journal's buckets")
		}
		if err := events.ForEach(func(k, v []byte) error {
			_, err := decodeRecord(k, v)
			return err
		}); err != nil {
			return err
		}
		// Every page was read above without a fault, so bbolt's check,
		// which runs in a goroutine of its own, reads no garbled page.
		var errs []error
		for err := range tx.Check() {
			if len(errs) < 10 {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// decodeRecord returns the event a stored record carries, or why it is
// not the record of the event its key numbers.
func decodeRecord(k, v []byte) (*v1alpha1.Event, error) {
	if len(k) != 8 {
		return nil, fmt.Errorf("a key of %d bytes, not a sequence number", len(k))
	}
	seq := binary.BigEndian.Uint64(k)
	var m v1alpha1.StreamMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, fmt.Errorf("record %d: %w", seq, err)
	}
	if m.Type != v1alpha1.MessageEvent || m.Event == nil || m.Event.Seq != seq {
		return nil, fmt.Errorf("record %d does not carry event %d", seq, seq)
	}
	return m.Event, nil
}

// salvage reads what it can of a damaged store: its meta bucket, and its
// records from the first on and from the last back, each until a record
// or a page fails.
func salvage(db *bolt.DB) (map[string][]byte, []record) {
	meta := map[string][]byte{}
	byKey := map[uint64]record{}
	_, _ = guarded(func() (struct{}, error) {
		return struct{}{}, db.View(func(tx *bolt.Tx) error {
			if b := tx.Bucket(bucketMeta); b != nil {
				_ = b.ForEach(func(k, v []byte) error {
					meta[string(k)] = slices.Clone(v)
					return nil
				})
			}
			return nil
		})
	})
	walk := func(first func(*bolt.Cursor) ([]byte, []byte), next func(*bolt.Cursor) ([]byte, []byte)) {
		_, _ = guarded(func() (struct{}, error) {
			return struct{}{}, db.View(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketEvents)
				if b == nil {
					return nil
				}
				c := b.Cursor()
				for k, v := first(c); k != nil; k, v = next(c) {
					e, err := decodeRecord(k, v)
					if err != nil {
						return err
					}
					byKey[e.Seq] = record{seq: e.Seq, time: e.Time.Time, line: slices.Clone(v)}
				}
				return nil
			})
		})
	}
	walk((*bolt.Cursor).First, (*bolt.Cursor).Next)
	walk((*bolt.Cursor).Last, (*bolt.Cursor).Prev)
	recs := make([]record, 0, len(byKey))
	for _, r := range byKey {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b record) int { return cmp.Compare(a.seq, b.seq) })
	return meta, recs
}
