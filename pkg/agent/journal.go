package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/journal"
)

// journalStopTimeout bounds the journal's last commit at shutdown.
const journalStopTimeout = 2 * time.Second

// JournalConfig is where and within which bounds the agent keeps its
// events on the node (journal.Options).
type JournalConfig struct {
	// Dir is the journal's directory; empty turns the journal off.
	Dir      string
	MaxBytes int64
	MaxAge   time.Duration
}

// DefaultJournalConfig returns the journal flags' defaults.
func DefaultJournalConfig() JournalConfig {
	return JournalConfig{Dir: journal.DefaultDir, MaxBytes: journal.DefaultMaxBytes, MaxAge: journal.DefaultMaxAge}
}

// AddFlags registers the journal's flags on fs.
func (c *JournalConfig) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Dir, "journal-dir", c.Dir, "The directory (created with mode 0700 if missing; the DaemonSet mounts it from the node) where the agent keeps its events, so that they outlive a restart, an upgrade or a node reboot: events --since and watch --since serve them after one, and each restart shows as a boundary event with the time no agent watched. A damaged journal is moved aside and a fresh one started with what is still readable. Set to \"\" to keep events in memory only.")
	fs.Int64Var(&c.MaxBytes, "journal-max-bytes", c.MaxBytes, "The most bytes of events the journal keeps; the oldest are dropped beyond it (podsrc_journal_dropped_events_total{bound=\"size\"}).")
	fs.DurationVar(&c.MaxAge, "journal-max-age", c.MaxAge, "The oldest events the journal keeps; older ones are dropped (podsrc_journal_dropped_events_total{bound=\"age\"}).")
}

// Validate refuses bounds the journal cannot keep, naming the flag.
func (c *JournalConfig) Validate() error {
	switch {
	case c.Dir == "":
		return nil
	case c.MaxBytes <= 0:
		return fmt.Errorf("--journal-max-bytes must be positive, not %d", c.MaxBytes)
	case c.MaxAge <= 0:
		return fmt.Errorf("--journal-max-age must be positive, not %v", c.MaxAge)
	}
	return nil
}

// openJournal opens the journal cfg.Journal names, or returns nil when it
// is off, or nil and why when it cannot be opened: the agent then serves
// without one, and says so.
func openJournal(ctx context.Context, cfg *Config, a *Agent) (*journal.Journal, error) {
	if cfg.Journal.Dir == "" {
		return nil, nil
	}
	j, err := journal.Open(ctx, journal.Options{
		Dir: cfg.Journal.Dir, MaxBytes: cfg.Journal.MaxBytes, MaxAge: cfg.Journal.MaxAge,
		Node: cfg.Node.NodeName, AgentVersion: version.Version, KubeletMinor: a.kubelet.String(),
		ExposePodSpecs: cfg.ExposePodSpecs,
	})
	if err != nil {
		klog.FromContext(ctx).Error(err, "Serving without a journal: events will not outlive this process. Fix the directory, or set --journal-dir=\"\" to turn the journal off", "journalDir", cfg.Journal.Dir)
		return nil, err
	}
	if n := j.Found().Discarded; n > 0 {
		klog.FromContext(ctx).Info("Dropped the journal's events recorded with --expose-pod-specs: this agent runs without it and does not serve them",
			"journalDir", cfg.Journal.Dir, "discardedEvents", n, "lastSeq", j.LastSeq())
	}
	return j, nil
}

// journalStatus is the state of the agent's journal, as sources serves it.
func (a *Agent) journalStatus() *v1alpha1.JournalStatus {
	switch {
	case a.journalErr != nil:
		return &v1alpha1.JournalStatus{State: v1alpha1.JournalFailed, Error: a.journalErr.Error()}
	case a.journal == nil:
		return &v1alpha1.JournalStatus{State: v1alpha1.JournalOff}
	}
	st := a.journal.Stats()
	out := &v1alpha1.JournalStatus{
		State: v1alpha1.JournalOn, Events: st.Events, Bytes: st.Bytes,
		MaxBytes: a.cfg.Journal.MaxBytes, MaxAge: metav1.Duration{Duration: a.cfg.Journal.MaxAge},
		WriteErrors: st.WriteErrors,
	}
	if st.Events > 0 {
		out.Oldest = &metav1.Time{Time: st.Oldest}
	}
	for bound, n := range st.Dropped {
		if n > 0 {
			if out.Dropped == nil {
				out.Dropped = map[string]uint64{}
			}
			out.Dropped[bound] = n
		}
	}
	return out
}

// useJournal makes the ring continue the journal's numbering with its
// newest events, hands the ring's events to it, serves the older ones
// from it and exports its metrics.
func (a *Agent) useJournal(ctx context.Context, j *journal.Journal) {
	kept, err := j.Newest(a.cfg.EventBuffer)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading the journal's newest events; streams read them from the journal instead")
		kept = eventring.Batch{}
	}
	a.ring.Restore(kept, j.LastSeq())
	a.ring.SetSink(j)
	a.api.History = j
	a.metrics.registry.MustRegister(journal.NewMetrics(j).Collectors()...)
	a.journal = j
}

// boundary returns the event that marks this process's start at now over
// what the journal found of the earlier ones.
func (a *Agent) boundary(now time.Time) v1alpha1.Event {
	f := a.journal.Found()
	b := &v1alpha1.Boundary{AgentVersion: version.Version, KubeletMinor: a.kubelet.String()}
	if !f.Fresh {
		b.PreviousStop = v1alpha1.StopUnclean
		if !f.Stopped.IsZero() {
			b.PreviousStop = v1alpha1.StopClean
		}
		if !f.LastAlive.IsZero() {
			b.Down = &v1alpha1.TimeGap{Start: metav1.NewMicroTime(f.LastAlive), End: metav1.NewMicroTime(now)}
		}
	}
	if f.Damage != "" {
		b.Damage = fmt.Sprintf("%s; moved to %s, kept %d events", f.Damage, f.MovedTo, f.Kept)
	}
	if f.Discarded > 0 {
		b.Discarded = fmt.Sprintf("%d events recorded with --expose-pod-specs were dropped: this agent runs without it", f.Discarded)
	}
	return v1alpha1.Event{Kind: v1alpha1.EventKindBoundary, Time: metav1.NewMicroTime(now), Boundary: b}
}

// runJournal publishes this process's boundary and writes the journal
// until stop is called, which returns once the journal's last events are
// written and it is closed.
func (a *Agent) runJournal(ctx context.Context) (stop func()) {
	if a.journal == nil {
		return func() {}
	}
	a.ring.Publish(a.boundary(time.Now()))
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.journal.Run(jctx)
	}()
	return func() {
		cancel()
		select {
		case <-done:
			if err := a.journal.Close(); err != nil {
				klog.FromContext(ctx).Error(err, "Closing the journal")
			}
		case <-time.After(journalStopTimeout):
			klog.FromContext(ctx).Error(nil, "The journal's last commit did not end in time; its newest events may be lost", "after", journalStopTimeout)
		}
	}
}
