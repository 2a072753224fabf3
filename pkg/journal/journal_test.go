package journal

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 20 * time.Second

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// process is one agent process's journal and ring in a test.
type process struct {
	j    *Journal
	ring *eventring.Ring
	stop context.CancelFunc
	done chan struct{}
}

// start opens the journal in dir as an agent does: its ring continues the
// journal's numbering and hands it every event; its writer runs.
func start(t *testing.T, dir string, o Options) *process {
	t.Helper()
	o.Dir = dir
	j, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	ring := eventring.NewWithEpoch(100, j.Epoch(), o.Now)
	kept, err := j.Newest(100)
	if err != nil {
		t.Fatal(err)
	}
	ring.Restore(kept, j.LastSeq())
	ring.SetSink(j)
	ctx, cancel := context.WithCancel(context.Background())
	p := &process{j: j, ring: ring, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		j.Run(ctx)
	}()
	t.Cleanup(p.close)
	return p
}

// close stops the writer, which commits what is pending and records a
// clean stop, and closes the store; once only.
func (p *process) close() {
	select {
	case <-p.done:
		return
	default:
	}
	p.stop()
	<-p.done
	_ = p.j.Close()
}

// publish publishes n config events at the clock's time and waits until
// the journal stored them; it returns the last sequence number.
func (p *process) publish(t *testing.T, n int, now func() time.Time) uint64 {
	t.Helper()
	var last uint64
	for i := range n {
		last = p.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpAdd, Source: v1alpha1.SourceFile,
			Time: metav1.NewMicroTime(now()), Pods: []v1alpha1.PodRef{{Name: fmt.Sprintf("pod-%d", i), Namespace: "default"}}})
	}
	awaitStored(t, p.j, last)
	return last
}

// awaitStored waits until j stored event seq.
func awaitStored(t *testing.T, j *Journal, seq uint64) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, waitLimit, true, func(context.Context) (bool, error) {
		return j.LastSeq() >= seq, nil
	})
	if err != nil {
		t.Fatalf("the journal did not store event %d (it has %d): %v", seq, j.LastSeq(), err)
	}
}

// readAll returns every event after after the journal holds, and the gaps
// it reports, as "from-to".
func readAll(t *testing.T, j *Journal, after uint64) (seqs []uint64, gaps []string) {
	t.Helper()
	var b eventring.Batch
	for {
		if err := j.Read(&b, after, 7); err != nil {
			t.Fatal(err)
		}
		if b.MissedTo != 0 {
			gaps = append(gaps, fmt.Sprintf("%d-%d", b.MissedFrom, b.MissedTo))
			after = b.MissedTo
		}
		if len(b.Events) == 0 {
			return seqs, gaps
		}
		for i, e := range b.Events {
			if want := fmt.Sprintf(`"seq":%d,`, e.Seq); !strings.Contains(string(b.Lines[i]), want) {
				t.Fatalf("line %q is not event %d's", b.Lines[i], e.Seq)
			}
			seqs = append(seqs, e.Seq)
			after = e.Seq
		}
	}
}

// seqRange returns from..to.
func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestRestartsContinueTheNumbering(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	o := Options{Now: c.Now}

	p := start(t, dir, o)
	if f := p.j.Found(); !f.Fresh || f.Damage != "" {
		t.Fatalf("first open found %+v, want a fresh journal", f)
	}
	epoch := p.j.Epoch()
	if last := p.publish(t, 30, c.Now); last != 30 {
		t.Fatalf("last event %d, want 30", last)
	}
	c.Add(time.Minute)
	p.close()

	for restart := 1; restart <= 3; restart++ {
		c.Add(10 * time.Second)
		p = start(t, dir, o)
		f := p.j.Found()
		if f.Fresh || f.Damage != "" || f.Stopped.IsZero() || f.LastAlive.IsZero() {
			t.Fatalf("restart %d found %+v, want a clean stop", restart, f)
		}
		if p.j.Epoch() != epoch {
			t.Fatalf("restart %d: epoch %s, want the journal's %s", restart, p.j.Epoch(), epoch)
		}
		if p.ring.LastSeq() != uint64(30*restart) {
			t.Fatalf("restart %d: the ring continues after %d, want %d", restart, p.ring.LastSeq(), 30*restart)
		}
		if last := p.publish(t, 30, c.Now); last != uint64(30*(restart+1)) {
			t.Fatalf("restart %d: last event %d, want %d", restart, last, 30*(restart+1))
		}
		p.close()
	}
	p = start(t, dir, o)
	seqs, gaps := readAll(t, p.j, 0)
	if !slices.Equal(seqs, seqRange(1, 120)) || len(gaps) > 0 {
		t.Fatalf("journal holds %v with gaps %v, want 1..120 without", seqs, gaps)
	}
}

// TestNumberingOutlivesEveryEvent lets the age bound drop every event of
// an idle node, then restarts: the next process numbers on after the last
// event ever stored, in the same epoch, so that a stream resuming after it
// misses nothing.
func TestNumberingOutlivesEveryEvent(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	o := Options{Now: c.Now, MaxAge: time.Hour}
	p := start(t, dir, o)
	epoch := p.j.Epoch()
	if last := p.publish(t, 10, c.Now); last != 10 {
		t.Fatalf("last event %d, want 10", last)
	}
	c.Add(2 * time.Hour)
	p.j.commit(false)
	if st := p.j.Stats(); st.Events != 0 || st.Dropped[BoundAge] != 10 {
		t.Fatalf("stats %+v, want every event dropped by age", st)
	}
	p.close()

	p = start(t, dir, o)
	if p.j.Epoch() != epoch || p.j.LastSeq() != 10 || p.ring.LastSeq() != 10 {
		t.Fatalf("restart: epoch %s, journal's last %d, ring's last %d; want epoch %s and 10", p.j.Epoch(), p.j.LastSeq(), p.ring.LastSeq(), epoch)
	}
	if last := p.publish(t, 1, c.Now); last != 11 {
		t.Fatalf("next event %d, want 11", last)
	}
}

// TestKillKeepsTheCommittedEvents stops a process without its last commit
// and clean stop, as kill -9 does: the committed events stay, and the next
// process finds an unclean stop with the time it was last known alive.
func TestKillKeepsTheCommittedEvents(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	j, err := Open(t.Context(), Options{Dir: dir, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ring := eventring.NewWithEpoch(100, j.Epoch(), c.Now)
	ring.SetSink(j)
	for range 10 {
		ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted"})
	}
	alive := c.Now()
	j.commit(false)
	c.Add(time.Minute)
	// Appended, never committed: the kill loses them.
	for range 5 {
		ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied"})
	}
	if err := j.db.Close(); err != nil {
		t.Fatal(err)
	}

	p := start(t, dir, Options{Now: c.Now})
	f := p.j.Found()
	if !f.Stopped.IsZero() || !f.LastAlive.Equal(alive) || f.Damage != "" {
		t.Fatalf("found %+v, want an unclean stop last alive at %v", f, alive)
	}
	// The 5 events the kill lost were served: the numbering skips as many
	// as a killed process may have served unstored, so that none of their
	// numbers names another event.
	if seqs, _ := readAll(t, p.j, 0); !slices.Equal(seqs, seqRange(1, 10)) {
		t.Fatalf("journal holds %v, want the 10 committed", seqs)
	}
	if p.j.LastSeq() != 10+maxUnstored {
		t.Fatalf("numbering goes on after %d, want %d", p.j.LastSeq(), 10+maxUnstored)
	}
	// Killed again before it stored an event: the skip was stored, and
	// is skipped from again.
	p.kill(t)
	p = start(t, dir, Options{Now: c.Now})
	if p.j.LastSeq() != 10+2*maxUnstored {
		t.Fatalf("after a second kill, numbering goes on after %d, want %d", p.j.LastSeq(), 10+2*maxUnstored)
	}
	if seq := p.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted"}); seq != 11+2*maxUnstored {
		t.Fatalf("next event %d, want %d", seq, 11+2*maxUnstored)
	}
}

// kill ends the process as kill -9 does: its writer stops without its last
// commit and clean stop.
func (p *process) kill(t *testing.T) {
	t.Helper()
	p.stop()
	<-p.done
	// The writer's last commit recorded a clean stop: take it back.
	if err := p.j.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyStopped) }); err != nil {
		t.Fatal(err)
	}
	if err := p.j.db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBounds(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
		p := start(t, t.TempDir(), Options{Now: c.Now, MaxBytes: 8 << 10})
		last := p.publish(t, 400, c.Now)
		s := p.j.Stats()
		if s.Bytes > 8<<10 || s.Dropped[BoundSize] == 0 || s.Dropped[BoundAge] != 0 {
			t.Fatalf("stats %+v, want at most 8 KiB and events dropped by size only", s)
		}
		if s.LastSeq != last || s.FirstSeq <= 1 || uint64(s.Events) != last-s.FirstSeq+1 || s.Dropped[BoundSize] != s.FirstSeq-1 {
			t.Fatalf("stats %+v, want the newest events up to %d without holes", s, last)
		}
		seqs, gaps := readAll(t, p.j, 0)
		if want := fmt.Sprintf("1-%d", s.FirstSeq-1); len(gaps) != 1 || gaps[0] != want || !slices.Equal(seqs, seqRange(s.FirstSeq, last)) {
			t.Fatalf("read %v with gaps %v, want gap %s then %d..%d", seqs, gaps, want, s.FirstSeq, last)
		}
	})
	t.Run("age", func(t *testing.T) {
		c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
		p := start(t, t.TempDir(), Options{Now: c.Now, MaxAge: time.Hour})
		p.publish(t, 20, c.Now)
		c.Add(30 * time.Minute)
		p.publish(t, 10, c.Now)
		c.Add(40 * time.Minute)
		last := p.publish(t, 5, c.Now)
		s := p.j.Stats()
		if s.Dropped[BoundAge] != 20 || s.Dropped[BoundSize] != 0 || s.FirstSeq != 21 || s.LastSeq != last {
			t.Fatalf("stats %+v, want the 20 events older than an hour dropped by age", s)
		}
		if want := c.Now().Add(-40 * time.Minute); !s.Oldest.Equal(want) {
			t.Fatalf("oldest %v, want %v", s.Oldest, want)
		}
	})
}

func TestSeqAt(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	p := start(t, t.TempDir(), Options{Now: c.Now, MaxAge: 3 * time.Hour})
	t0 := c.Now()
	for range 5 {
		p.publish(t, 10, c.Now) // 10 events each minute
		c.Add(time.Minute)
	}
	tests := []struct {
		at   time.Time
		want uint64
	}{
		{at: t0.Add(-time.Hour), want: 0},
		{at: t0, want: 0},
		{at: t0.Add(30 * time.Second), want: 10},
		{at: t0.Add(2 * time.Minute), want: 20},
		{at: t0.Add(4*time.Minute + time.Second), want: 50},
		{at: t0.Add(time.Hour), want: 50},
	}
	for _, tt := range tests {
		got, err := p.j.SeqAt(tt.at)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("SeqAt(t0+%v) = %d, want %d", tt.at.Sub(t0), got, tt.want)
		}
	}
	// Once the oldest are dropped, a time before the oldest kept starts
	// before the dropped ones, which readers then get as a gap.
	c.Add(3*time.Hour - 2*time.Minute)
	p.publish(t, 1, c.Now)
	if first := p.j.Stats().FirstSeq; first <= 1 {
		t.Fatalf("first event %d, want the oldest dropped", first)
	}
	if got, _ := p.j.SeqAt(t0); got != 0 {
		t.Fatalf("SeqAt(t0) = %d, want 0 after a drop", got)
	}
}

// TestDamagedStores opens stores damaged in several ways: each is detected,
// moved aside, and the events still readable are kept in a fresh store
// that continues the numbering when its meta survived.
func TestDamagedStores(t *testing.T) {
	tests := []struct {
		name string
		// damage damages the store at path, whose pages take used bytes.
		damage func(t *testing.T, path string, used int64)
		// keepsEpoch says the meta page is expected to survive.
		keepsEpoch bool
	}{
		{name: "truncated to half", damage: func(t *testing.T, path string, used int64) { truncate(t, path, used/2) }},
		{name: "truncated mid-page", damage: func(t *testing.T, path string, used int64) { truncate(t, path, used-1000) }},
		{name: "truncated to nothing", damage: func(t *testing.T, path string, used int64) { truncate(t, path, 0) }},
		{name: "all garbage", damage: func(t *testing.T, path string, used int64) { garble(t, path, 0, used) }},
		{name: "garbage in a third of the events' leaf pages", damage: garbleEventLeaves, keepsEpoch: true},
		{name: "not a database", damage: func(t *testing.T, path string, used int64) {
			if err := os.WriteFile(path, []byte("hello, this is not bbolt\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
			p := start(t, dir, Options{Now: c.Now})
			epoch := p.j.Epoch()
			// Large enough for many pages and several levels.
			last := p.publish(t, 3000, c.Now)
			p.close()
			path := filepath.Join(dir, FileName)
			tt.damage(t, path, usedBytes(t, path))

			p = start(t, dir, Options{Now: c.Now})
			f := p.j.Found()
			if f.Damage == "" || f.MovedTo == "" {
				t.Fatalf("found %+v, want the damage detected", f)
			}
			if _, err := os.Stat(f.MovedTo); err != nil {
				t.Fatalf("the damaged store is not kept aside: %v", err)
			}
			seqs, _ := readAll(t, p.j, 0)
			if len(seqs) != f.Kept {
				t.Fatalf("the fresh store holds %d events, Found says %d were kept", len(seqs), f.Kept)
			}
			for _, s := range seqs {
				if s < 1 || s > last {
					t.Fatalf("kept event %d, which was never written", s)
				}
			}
			if tt.keepsEpoch && (p.j.Epoch() != epoch || f.Kept == 0) {
				t.Fatalf("epoch %s with %d events kept, want the journal's %s and some events", p.j.Epoch(), f.Kept, epoch)
			}
			// The fresh store works: in a new epoch, right after the
			// newest event it kept; when the epoch goes on, past every
			// number the journal had given (and, its clean stop lost with
			// the damage, past those a killed agent may have served): no
			// number of an epoch is given twice.
			next := p.publish(t, 3, c.Now)
			switch {
			case p.j.Epoch() == epoch && next <= last+3-1:
				t.Fatalf("new events end at %d in the journal's epoch, which had given numbers up to %d", next, last)
			case p.j.Epoch() != epoch && len(seqs) > 0 && next != seqs[len(seqs)-1]+3:
				t.Fatalf("new events end at %d, want 3 after %d", next, seqs[len(seqs)-1])
			}
			p.close()
			p = start(t, dir, Options{Now: c.Now})
			if f := p.j.Found(); f.Damage != "" {
				t.Fatalf("the fresh store is damaged too: %+v", f)
			}
		})
	}
}

// usedBytes returns the bytes of the pages of the store at path (its file
// may be longer).
func usedBytes(t *testing.T, path string) int64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var used int64
	_ = db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
	return used
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// garble overwrites n bytes of path from off with random bytes.
func garble(t *testing.T, path string, off, n int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	if _, err := f.WriteAt(buf, off); err != nil {
		t.Fatal(err)
	}
}

// garbleEventLeaves fills the events' newest leaf pages, a third of them,
// with garbage: the older events before them stay readable, wherever the
// store laid its pages out. A leaf page is the events' when its first key
// is a sequence number (8 bytes); its place is that key's order.
func garbleEventLeaves(t *testing.T, path string, _ int64) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	pageSize := db.Info().PageSize
	err = db.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if err != nil || p == nil {
				return err
			}
			if p.Type == "leaf" && p.Count > 0 {
				ids = append(ids, id)
			}
		}
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A leaf page: a 16-byte header, then 16-byte elements (flags, pos,
	// ksize, vsize), each key at pos from its element.
	type leaf struct {
		id    int
		first uint64
	}
	var leaves []leaf
	for _, id := range ids {
		page := data[id*pageSize : (id+1)*pageSize]
		pos, ksize := binary.LittleEndian.Uint32(page[20:]), binary.LittleEndian.Uint32(page[24:])
		if ksize != 8 || int(16+pos+ksize) > len(page) {
			continue
		}
		leaves = append(leaves, leaf{id, binary.BigEndian.Uint64(page[16+pos:])})
	}
	if len(leaves) < 3 {
		t.Fatalf("the store has %d leaf pages of events; the test needs more events", len(leaves))
	}
	slices.SortFunc(leaves, func(a, b leaf) int { return cmp.Compare(a.first, b.first) })
	for _, l := range leaves[len(leaves)-len(leaves)/3:] {
		garble(t, path, int64(l.id*pageSize), int64(pageSize))
	}
}

// TestConcurrentReaders reads and searches the journal from several
// goroutines while events are written: every read is in order, without
// holes (run with -race).
func TestConcurrentReaders(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	p := start(t, t.TempDir(), Options{Now: c.Now})
	const total = 2000
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			var b eventring.Batch
			var after uint64
			for after < total {
				if err := p.j.Read(&b, after, 50); err != nil {
					errs <- err
					return
				}
				if b.MissedTo != 0 {
					errs <- fmt.Errorf("gap %d-%d in a journal without bounds reached", b.MissedFrom, b.MissedTo)
					return
				}
				for _, e := range b.Events {
					if e.Seq != after+1 {
						errs <- fmt.Errorf("event %d after %d", e.Seq, after)
						return
					}
					after = e.Seq
				}
				if _, err := p.j.SeqAt(c.Now()); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	p.publish(t, total, c.Now)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestOpenRefusesAnotherFormat keeps a journal of another record format
// rather than misread it.
func TestOpenRefusesAnotherFormat(t *testing.T) {
	dir := t.TempDir()
	p := start(t, dir, Options{})
	p.close()
	j, err := Open(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyFormat, []byte("0")) }); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	if _, err := Open(t.Context(), Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), `record format "0"`) {
		t.Fatalf("opening a journal of record format 0: %v, want a refusal naming the format", err)
	}
}

// TestOpenRefusesAJournalInUse opens a journal a second time while the
// first holds it, as a second agent given the same --journal-dir would:
// the second is refused, and the first's store is neither moved aside as
// damaged nor cut.
func TestOpenRefusesAJournalInUse(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := Open(t.Context(), Options{Dir: dir, LockTimeout: 100 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("opening a journal in use: %v, want a refusal saying it is in use", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != FileName {
		t.Fatalf("the journal's directory holds %v, want %s alone", entries, FileName)
	}
	if err := check(first.db, first.path); err != nil {
		t.Fatalf("the first journal after the refused open: %v", err)
	}
}

// TestOpenKeepsAnExistingDirectorysMode opens journals in a directory it
// must create, which is private, and in one that exists, whose mode is the
// operator's and stays.
func TestOpenKeepsAnExistingDirectorysMode(t *testing.T) {
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		mode os.FileMode
	}{
		{name: "created", dir: filepath.Join(t.TempDir(), "a", "journal"), mode: 0o700},
		{name: "existing", dir: shared, mode: 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Open(t.Context(), Options{Dir: tt.dir})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			st, err := os.Stat(tt.dir)
			if err != nil || st.Mode().Perm() != tt.mode {
				t.Fatalf("the directory's mode %v (%v), want %v", st.Mode().Perm(), err, tt.mode)
			}
			if st, err := os.Stat(filepath.Join(tt.dir, FileName)); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("the journal's file: %v, want mode 0600", err)
			}
		})
	}
}

// TestDamageAgainKeepsOneDamagedFile damages the journal twice: the second
// damaged file moved aside replaces the first, so that damage again and
// again does not fill the node's disk.
func TestDamageAgainKeepsOneDamagedFile(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	path := filepath.Join(dir, FileName)
	var moved []string
	for range 2 {
		p := start(t, dir, Options{Now: c.Now})
		p.publish(t, 10, c.Now)
		p.close()
		if err := os.WriteFile(path, []byte("not bbolt\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Minute)
		p = start(t, dir, Options{Now: c.Now})
		moved = append(moved, p.j.Found().MovedTo)
		p.close()
	}
	left, err := filepath.Glob(path + corruptSuffix + "*")
	if err != nil || len(left) != 1 || left[0] != moved[1] || moved[0] == moved[1] {
		t.Fatalf("damaged files beside the journal %v (%v), want only the newest of %v", left, err, moved)
	}
}

// TestOpenUnderAnotherProjection reopens a journal with pod specs exposed
// or not: events written with them exposed are dropped when the next
// process does not expose them, and the numbering goes on in the same
// epoch, so that a reader is told of the dropped ones as a gap.
func TestOpenUnderAnotherProjection(t *testing.T) {
	tests := []struct {
		name        string
		was, now    bool
		wantDropped bool
	}{
		{name: "exposed, then not", was: true, now: false, wantDropped: true},
		{name: "not exposed, then exposed", was: false, now: true},
		{name: "exposed both times", was: true, now: true},
		{name: "exposed neither time", was: false, now: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
			p := start(t, dir, Options{Now: c.Now, ExposePodSpecs: tt.was})
			epoch := p.j.Epoch()
			p.publish(t, 10, c.Now)
			p.close()

			p = start(t, dir, Options{Now: c.Now, ExposePodSpecs: tt.now})
			f, st := p.j.Found(), p.j.Stats()
			if p.j.Epoch() != epoch || p.j.LastSeq() != 10 || p.ring.LastSeq() != 10 {
				t.Fatalf("epoch %s, journal's last %d, ring's last %d; want epoch %s and 10", p.j.Epoch(), p.j.LastSeq(), p.ring.LastSeq(), epoch)
			}
			if last := p.publish(t, 5, c.Now); last != 15 {
				t.Fatalf("next events end at %d, want 15", last)
			}
			seqs, gaps := readAll(t, p.j, 0)
			if tt.wantDropped {
				if f.Discarded != 10 || st.Events != 0 {
					t.Fatalf("found %+v and stats %+v, want 10 events discarded and none held", f, st)
				}
				if !slices.Equal(seqs, seqRange(11, 15)) || !slices.Equal(gaps, []string{"1-10"}) {
					t.Fatalf("journal holds %v with gaps %v, want 11..15 after the gap 1-10", seqs, gaps)
				}
				return
			}
			if f.Discarded != 0 || !slices.Equal(seqs, seqRange(1, 15)) || len(gaps) > 0 {
				t.Fatalf("found %+v; journal holds %v with gaps %v, want nothing discarded and 1..15", f, seqs, gaps)
			}
		})
	}
}

// TestOpenWithoutAProjectionKeepsTheEvents reopens a journal written
// before the projection was recorded: it counts as written under the
// current setting, and keeps its events.
func TestOpenWithoutAProjectionKeepsTheEvents(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	p := start(t, dir, Options{Now: c.Now, ExposePodSpecs: true})
	p.publish(t, 10, c.Now)
	p.close()
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyExposePodSpecs) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	p = start(t, dir, Options{Now: c.Now})
	if f := p.j.Found(); f.Discarded != 0 {
		t.Fatalf("found %+v, want nothing discarded", f)
	}
	if seqs, gaps := readAll(t, p.j, 0); !slices.Equal(seqs, seqRange(1, 10)) || len(gaps) > 0 {
		t.Fatalf("journal holds %v with gaps %v, want 1..10", seqs, gaps)
	}
}

// TestBacklogDropsKeepTheirNumbers appends more events than the writer's
// backlog holds, as a stream served them, then stops cleanly: the events
// the backlog bound dropped were served under their numbers, and the next
// process numbers on after the newest of them.
func TestBacklogDropsKeepTheirNumbers(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	j, err := Open(t.Context(), Options{Dir: dir, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ring := eventring.NewWithEpoch(100, j.Epoch(), c.Now)
	ring.SetSink(j)
	// No writer runs: past maxPending, the backlog bound drops.
	var last uint64
	for range maxPending + 10 {
		last = ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted"})
	}
	if d := j.Stats().Dropped[BoundBacklog]; d != 10 {
		t.Fatalf("dropped %d for the backlog, want 10", d)
	}
	j.commit(true)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	p := start(t, dir, Options{Now: c.Now})
	if p.j.LastSeq() != last {
		t.Fatalf("numbering goes on after %d, want after the newest served, %d", p.j.LastSeq(), last)
	}
	if seq := p.ring.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted"}); seq != last+1 {
		t.Fatalf("next event %d, want %d", seq, last+1)
	}
}
