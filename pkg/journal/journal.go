package journal

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Defaults of the agent's journal flags.
const (
	// DefaultDir is the node directory the journal lives in, a hostPath
	// the DaemonSet mounts.
	DefaultDir = "/var/lib/podsrc"
	// DefaultMaxBytes bounds the bytes of the events' records.
	DefaultMaxBytes = 64 << 20
	// DefaultMaxAge bounds the age of the events kept.
	DefaultMaxAge = 7 * 24 * time.Hour
)

// FileName is the journal's file in its directory.
const FileName = "journal.db"

// corruptSuffix and a time follow FileName in the name of a damaged
// journal moved aside.
const corruptSuffix = ".corrupt-"

// FormatVersion is the version of the record format (see the package
// comment), stored in the meta bucket.
const FormatVersion = "1"

// aliveInterval is how often an idle writer records that the agent is
// alive, which bounds how early a restart's gap may start.
const aliveInterval = 5 * time.Second

// commitLinger is how long the writer gathers events after the first
// before it commits them: at 5,000 events/s a commit for each few events
// took 2.7 times the agent's CPU without the journal (bench-agent stream).
const commitLinger = 10 * time.Millisecond

// maxPending is how many appended events may wait for the writer before
// newer ones are dropped (bound "backlog").
const maxPending = 1 << 16

// maxUnstored bounds the events a process served and never stored when it
// is killed: the writer's batch being committed, and the pending ones.
const maxUnstored = 2 * maxPending

// defaultLockTimeout is how long Open waits for another process (an agent
// still shutting down) to let go of the store.
const defaultLockTimeout = 10 * time.Second

// Bucket and meta key names.
var (
	bucketEvents = []byte("events")
	bucketMeta   = []byte("meta")

	keyFormat       = []byte("format")
	keyEpoch        = []byte("epoch")
	keyNode         = []byte("node")
	keyAgentVersion = []byte("agentVersion")
	keyKubeletMinor = []byte("kubeletMinor")
	keyAlive        = []byte("alive")
	keyStopped      = []byte("stopped")
	// keyLastSeq is the newest event's sequence number, which outlives
	// the event when the bounds drop every one.
	keyLastSeq = []byte("lastSeq")
)

// Options configure a journal.
type Options struct {
	// Dir is the directory of the store; Open creates it with mode 0700.
	Dir string
	// MaxBytes bounds the bytes of the events' records (DefaultMaxBytes
	// when not positive); MaxAge the age of the events (DefaultMaxAge
	// when not positive).
	MaxBytes int64
	MaxAge   time.Duration
	// Node, AgentVersion and KubeletMinor describe the recording agent,
	// in the meta bucket.
	Node, AgentVersion, KubeletMinor string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// LockTimeout is how long Open waits for another process to let go
	// of the store (10s when not positive).
	LockTimeout time.Duration
	// ExposePodSpecs says the agent serves pod specs in full, so that the
	// lines it journals may quote them. Open drops the events written
	// with it when it is now false (Found.Discarded).
	ExposePodSpecs bool
}

// Found is what Open found of earlier agent processes.
type Found struct {
	// Fresh says there was no journal: this is its first agent.
	Fresh bool
	// LastAlive is the last time an earlier process recorded itself
	// alive; Stopped, when not zero, the time it stopped cleanly.
	LastAlive, Stopped time.Time
	// Damage, when not empty, says what was wrong with the store: it was
	// moved to MovedTo, and Kept of its events were copied into a fresh
	// one.
	Damage  string
	MovedTo string
	Kept    int
	// Discarded counts the events written with pod specs exposed that
	// Open dropped, unserved, because Options.ExposePodSpecs is now false.
	Discarded int
}

// Journal is an agent's events on disk; the package comment lists what it
// guarantees. Its methods are safe for concurrent use.
type Journal struct {
	db     *bolt.DB
	path   string
	epoch  string
	found  Found
	opts   Options
	logger klog.Logger

	// mu guards what Append and the writer share, and the stats.
	mu      sync.Mutex
	pending []record
	// appended is the newest event appended, stored or dropped by the
	// backlog bound: served under its number either way.
	appended uint64
	wake     chan struct{}
	stats    Stats
	// commits times each commit.
	commits commitObserver
}

// commitObserver takes the duration of a commit.
type commitObserver interface{ Observe(float64) }

// record is an event waiting for the writer.
type record struct {
	seq  uint64
	time time.Time
	line []byte
}

// Stats describe the journal's content and its writer.
type Stats struct {
	// Path is the store's file.
	Path string
	// Events and Bytes are what the store holds: events, and the bytes of
	// their records.
	Events int
	Bytes  int64
	// FirstSeq numbers the oldest event stored, Oldest is its time;
	// LastSeq numbers the newest event ever committed (stored, or dropped
	// by a bound), or, after a process that did not stop cleanly, the last
	// it may have served: the next process numbers on from it.
	FirstSeq, LastSeq uint64
	Oldest            time.Time
	// Dropped counts the events dropped, by bound: "size", "age" or
	// "backlog".
	Dropped map[string]uint64
	// WriteErrors counts the commits that failed; their events are lost.
	WriteErrors uint64
}

// Open opens the journal in o.Dir, creating it or recovering it from
// damage (see the package comment).
func Open(ctx context.Context, o Options) (*Journal, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = defaultLockTimeout
	}
	logger := klog.FromContext(ctx)
	if err := privateDir(o.Dir, logger); err != nil {
		return nil, err
	}
	path := filepath.Join(o.Dir, FileName)
	j := &Journal{path: path, opts: o, logger: logger, wake: make(chan struct{}, 1),
		stats: Stats{Path: path, Dropped: map[string]uint64{}}}

	var salvaged *inspection
	switch _, err := os.Stat(path); {
	case errors.Is(err, os.ErrNotExist):
		j.found.Fresh = true
	case err != nil:
		return nil, fmt.Errorf("reading the journal %s: %w", path, err)
	default:
		in := inspect(path, o.LockTimeout)
		switch {
		case in.busy:
			return nil, fmt.Errorf("the journal %s is in use by another process (another podsrc-agent with the same --journal-dir?); it waited %v for it", path, o.LockTimeout)
		case errors.Is(in.err, fs.ErrPermission):
			// The agent may not read it: that is no damage to cut.
			return nil, fmt.Errorf("reading the journal %s: %w", path, in.err)
		}
		if in.err != nil {
			moved := fmt.Sprintf("%s%s%s", path, corruptSuffix, o.Now().UTC().Format("20060102T150405Z"))
			if err := os.Rename(path, moved); err != nil {
				return nil, fmt.Errorf("moving the damaged journal %s aside: %w", path, err)
			}
			removeOlderDamaged(path, moved, logger)
			j.found.Damage, j.found.MovedTo, j.found.Kept = in.err.Error(), moved, len(in.records)
			logger.Error(in.err, "The journal is damaged; moved it aside and started a fresh one with the events still readable",
				"journal", path, "movedTo", moved, "keptEvents", len(in.records))
			salvaged = &in
		}
	}

	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout})
	if err != nil {
		return nil, fmt.Errorf("opening the journal %s (is another podsrc-agent using it?): %w", path, err)
	}
	j.db = db
	if err := j.start(salvaged); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("starting the journal %s: %w", path, err)
	}
	return j, nil
}

// removeOlderDamaged removes the damaged journals moved aside before kept,
// so that damage again and again leaves one file beside the journal, not
// one each time.
func removeOlderDamaged(path, kept string, logger klog.Logger) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		logger.Error(err, "Listing the older damaged journals", "dir", filepath.Dir(path))
		return
	}
	for _, e := range entries {
		f := filepath.Join(filepath.Dir(path), e.Name())
		if f == kept || !strings.HasPrefix(e.Name(), filepath.Base(path)+corruptSuffix) {
			continue
		}
		if err := os.Remove(f); err != nil {
			logger.Error(err, "Removing an older damaged journal", "file", f)
		}
	}
}

// privateDir makes dir, mode 0700, when it is missing. A directory that
// exists is the operator's (a hostPath, or one shared with others): its
// mode stays, and the journal file itself is 0600.
func privateDir(dir string, logger klog.Logger) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating the journal directory %s: %w", dir, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading the journal directory %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("the journal directory %s is not a directory", dir)
	case st.Mode().Perm()&0o077 != 0:
		logger.V(1).Info("The journal's directory is open to others; its file is not", "journalDir", dir, "mode", st.Mode().Perm().String())
	}
	return nil
}

// start reads what earlier processes left in the meta bucket, copies the
// salvaged records of a damaged store, and marks the journal as in use.
func (j *Journal) start(salvaged *inspection) error {
	return j.db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		events, err := tx.CreateBucketIfNotExists(bucketEvents)
		if err != nil {
			return err
		}
		old := map[string][]byte{}
		_ = meta.ForEach(func(k, v []byte) error { old[string(k)] = v; return nil })
		if salvaged != nil {
			for k, v := range salvaged.meta {
				old[k] = v
			}
			events.FillPercent = 1
			for _, r := range salvaged.records {
				if err := events.Put(seqKey(r.seq), r.line); err != nil {
					return err
				}
			}
		}
		if f, ok := old[string(keyFormat)]; ok && string(f) != FormatVersion {
			return fmt.Errorf("record format %q, this agent writes %q: move the file aside", f, FormatVersion)
		}
		j.epoch = string(old[string(keyEpoch)])
		if j.epoch == "" {
			j.epoch = strconv.FormatInt(j.opts.Now().UnixNano(), 36)
		}
		j.found.LastAlive = parseTime(old[string(keyAlive)])
		j.found.Stopped = parseTime(old[string(keyStopped)])
		for k, v := range map[string]string{
			string(keyFormat): FormatVersion, string(keyEpoch): j.epoch, string(keyNode): j.opts.Node,
			string(keyAgentVersion): j.opts.AgentVersion, string(keyKubeletMinor): j.opts.KubeletMinor,
			string(keyAlive): formatTime(j.opts.Now()),
		} {
			if err := meta.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		if err := meta.Delete(keyStopped); err != nil {
			return err
		}
		if events, j.found.Discarded, err = j.discardExposed(tx, meta, events, old); err != nil {
			return err
		}
		if err := j.count(events); err != nil {
			return err
		}
		// The numbering goes on after the newest event ever stored, also
		// when the bounds dropped it.
		if b := old[string(keyLastSeq)]; len(b) == 8 {
			j.stats.LastSeq = max(j.stats.LastSeq, binary.BigEndian.Uint64(b))
		}
		// A process that did not stop cleanly may have served events its
		// writer never stored. The numbering skips as many as it could
		// have, so that no number of the epoch names two events, and a
		// stream resuming among them is told of a gap.
		if !j.found.Fresh && j.found.Stopped.IsZero() {
			j.stats.LastSeq += maxUnstored
			return meta.Put(keyLastSeq, seqKey(j.stats.LastSeq))
		}
		return nil
	})
}

// count sets the stats of what events holds.
func (j *Journal) count(events *bolt.Bucket) error {
	c := events.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if j.stats.Events == 0 {
			j.stats.FirstSeq = binary.BigEndian.Uint64(k)
			j.stats.Oldest = lineTime(v)
		}
		j.stats.Events++
		j.stats.Bytes += int64(len(k) + len(v))
		j.stats.LastSeq = binary.BigEndian.Uint64(k)
	}
	return nil
}

// Epoch names the journal's numbering: it stays the same from one agent
// process to the next.
func (j *Journal) Epoch() string { return j.epoch }

// Found says what Open found of earlier agent processes.
func (j *Journal) Found() Found { return j.found }

// LastSeq returns the sequence number of the newest event stored.
func (j *Journal) LastSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats.LastSeq
}

// Stats returns the journal's stats.
func (j *Journal) Stats() Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.stats
	s.Dropped = make(map[string]uint64, len(j.stats.Dropped))
	for k, v := range j.stats.Dropped {
		s.Dropped[k] = v
	}
	return s
}

// Append queues an event and its stream line (which must not change) for
// the writer; it never waits for the disk. The event ring calls it as it
// publishes, in sequence order.
func (j *Journal) Append(e *v1alpha1.Event, line []byte) {
	j.mu.Lock()
	j.appended = max(j.appended, e.Seq)
	if len(j.pending) >= maxPending {
		j.stats.Dropped[BoundBacklog]++
	} else {
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		j.pending = append(j.pending, record{seq: e.Seq, time: e.Time.Time, line: line})
	}
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// Run writes the appended events until ctx ends, then writes the last of
// them and records a clean stop.
func (j *Journal) Run(ctx context.Context) {
	alive := time.NewTicker(aliveInterval)
	defer alive.Stop()
	for {
		select {
		case <-ctx.Done():
			j.commit(true)
			return
		case <-j.wake:
			// The events that follow for a moment go in the same commit:
			// one transaction and one fsync for a batch, not for each few
			// events. A crash loses at most this moment more.
			linger := time.NewTimer(commitLinger)
			select {
			case <-ctx.Done():
				linger.Stop()
				j.commit(true)
				return
			case <-linger.C:
			}
		case <-alive.C:
		}
		j.commit(false)
	}
}

// Close closes the store; call it after Run returned.
func (j *Journal) Close() error {
	if err := j.db.Close(); err != nil {
		return fmt.Errorf("closing the journal %s: %w", j.path, err)
	}
	return nil
}

// commit writes the pending events, the time and, when stopping, the
// clean stop, and applies the bounds, in one transaction.
func (j *Journal) commit(stopping bool) {
	j.mu.Lock()
	recs := j.pending
	j.pending = nil
	appended := j.appended
	held := j.stats.Bytes
	j.mu.Unlock()
	start := time.Now()
	var added, bytes int64
	var trimmed trim
	err := j.db.Update(func(tx *bolt.Tx) error {
		events, meta := tx.Bucket(bucketEvents), tx.Bucket(bucketMeta)
		// Keys only grow: full pages waste nothing.
		events.FillPercent = 1
		for _, r := range recs {
			k := seqKey(r.seq)
			if err := events.Put(k, r.line); err != nil {
				return fmt.Errorf("storing event %d: %w", r.seq, err)
			}
			added++
			bytes += int64(len(k) + len(r.line))
		}
		// The newest number served, also that of an event the backlog
		// bound or a failed commit lost: the next process numbers on
		// after it.
		if appended > 0 {
			if err := meta.Put(keyLastSeq, seqKey(appended)); err != nil {
				return err
			}
		}
		now := j.opts.Now()
		if err := meta.Put(keyAlive, []byte(formatTime(now))); err != nil {
			return err
		}
		if stopping {
			if err := meta.Put(keyStopped, []byte(formatTime(now))); err != nil {
				return err
			}
		}
		var err error
		trimmed, err = j.trim(events, held, bytes, now)
		return err
	})
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		j.stats.WriteErrors++
		j.logger.Error(err, "Writing the journal; these events are lost from it", "journal", j.path, "events", len(recs), "writeErrors", j.stats.WriteErrors)
		return
	}
	if j.commits != nil {
		j.commits.Observe(time.Since(start).Seconds())
	}
	if added > 0 {
		if j.stats.Events == 0 {
			j.stats.FirstSeq, j.stats.Oldest = recs[0].seq, recs[0].time
		}
		j.stats.Events += int(added)
		j.stats.Bytes += bytes
	}
	j.stats.LastSeq = max(j.stats.LastSeq, appended)
	j.applyTrim(trimmed)
}

// seqKey is the key of event seq.
func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// parseTime reads a time formatTime wrote; the zero time when there is
// none or it is not one.
func parseTime(b []byte) time.Time {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
}
