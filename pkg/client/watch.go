package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Watcher follows an agent's event stream across dropped connections: it
// reconnects with backoff, resumes after the last sequence number it
// delivered, never delivers an event twice, and turns events that cannot be
// had any more into gap messages. A stream with an Until ends there, and
// Run with it.
type Watcher struct {
	// Open opens a stream; usually Agent.Events.
	Open func(ctx context.Context, q v1alpha1.EventQuery) (*Stream, error)
	// Query selects the events; Since, Tail and Snapshot apply to the
	// first connection only, later ones resume after the last sequence
	// number, up to the Until the agent resolved.
	Query v1alpha1.EventQuery
	// InitialBackoff is the wait before the first retry and MaxBackoff the
	// cap of its doubling (500ms and 10s when zero); each wait gets up to a
	// fifth more at random, so one may exceed MaxBackoff; see backoff.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxAttempts bounds consecutive failed attempts to (re)connect;
	// negative means no bound.
	MaxAttempts int
	// IdleTimeout ends a stream on which nothing, not even a heartbeat,
	// arrived for that long; zero means never.
	IdleTimeout time.Duration
	// AnswerTimeout bounds the wait for the first message (a stream opens
	// with one), reconnections included: when it passes first, Run fails
	// with an error that wraps ErrNoAnswer. Zero means no bound.
	AnswerTimeout time.Duration
	// Notify, if set, hears about reconnections.
	Notify func(Reconnect)
}

// Reconnect says the watcher lost its stream and will try again.
type Reconnect struct {
	// Err is why the stream ended or could not be opened.
	Err error
	// Attempt counts consecutive attempts from 1; MaxAttempts is the bound
	// (negative: none).
	Attempt, MaxAttempts int
	// Delay is the wait before the attempt.
	Delay time.Duration
	// Since is the sequence number the attempt resumes after; Resume says
	// whether there is one.
	Since  uint64
	Resume bool
}

// ErrNoAnswer says that no stream of the agent sent its first message
// within the Watcher's AnswerTimeout.
var ErrNoAnswer = errors.New("the agent sent nothing, not even the heartbeat that opens its event stream")

// NoAnswerError is ErrNoAnswer with the bound and the last error of the
// Watcher's attempts (nil when none failed before the bound passed).
type NoAnswerError struct {
	Within time.Duration
	Last   error
}

// Error says the node did not answer within the timeout, and its last
// error.
func (e *NoAnswerError) Error() string {
	if e.Last != nil {
		return fmt.Sprintf("%v within %s (last: %v)", ErrNoAnswer, e.Within, e.Last)
	}
	return fmt.Sprintf("%v within %s", ErrNoAnswer, e.Within)
}

// Is makes a NoAnswerError ErrNoAnswer.
func (e *NoAnswerError) Is(target error) bool { return target == ErrNoAnswer }

// errEnded says the stream reached its Until.
var errEnded = errors.New("the stream reached its end")

// ErrIdle ends a stream that went silent for the IdleTimeout.
var ErrIdle = errors.New("no message, not even a heartbeat, arrived")

// Run follows the stream until ctx is done or the stream reaches its Until
// (then it returns nil), a permanent error occurs, the attempts run out,
// AnswerTimeout passes without a message, or handle fails. handle sees
// events, gaps, snapshots and resets (the agent restarted) in order; gaps
// include the holes the watcher finds itself in a sequence that has none
// but losses (EventQuery.Gapless).
func (w *Watcher) Run(ctx context.Context, handle func(*v1alpha1.StreamMessage) error) error {
	t := &tracker{filtered: !w.Query.Gapless()}
	if s := w.Query.Since; s != nil && !s.IsAge {
		t.last, t.have = s.Seq, true
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var lastErr error
	answered := func() {}
	if w.AnswerTimeout > 0 {
		timer := time.AfterFunc(w.AnswerTimeout, func() { cancel(ErrNoAnswer) })
		defer timer.Stop()
		answered = func() { timer.Stop() }
	}
	// ended is what Run returns once ctx is done: nil, unless no answer
	// came in time.
	ended := func() error {
		if !errors.Is(context.Cause(ctx), ErrNoAnswer) {
			return nil
		}
		return &NoAnswerError{Within: w.AnswerTimeout, Last: lastErr}
	}
	first := true
	attempt := 0
	backoff := w.backoff()
	for {
		q := w.Query
		if !first {
			q.Snapshot, q.Tail, q.Since = false, 0, nil
			if t.have {
				q.Since, q.Epoch = v1alpha1.SeqMark(t.last), t.epoch
			}
			if t.bounded {
				q.Until = v1alpha1.SeqMark(t.until)
			}
		}
		progressed, err := w.once(ctx, q, t, handle, answered)
		if ctx.Err() != nil {
			return ended()
		}
		if errors.Is(err, errEnded) {
			return nil
		}
		lastErr = err
		var he handlerError
		if errors.As(err, &he) {
			return he.err
		}
		if err != nil && IsPermanent(err) {
			return err
		}
		if progressed {
			first = false
			attempt = 0
			backoff = w.backoff()
		}
		attempt++
		if w.MaxAttempts >= 0 && attempt > w.MaxAttempts {
			return fmt.Errorf("giving up after %d attempts to reconnect: %w", attempt-1, err)
		}
		delay := backoff.Step()
		if w.Notify != nil {
			w.Notify(Reconnect{Err: err, Attempt: attempt, MaxAttempts: w.MaxAttempts, Delay: delay, Since: t.last, Resume: t.have})
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ended()
		case <-timer.C:
		}
	}
}

// handlerError carries an error of the handler out of once.
type handlerError struct{ err error }

func (e handlerError) Error() string { return e.err.Error() }

// once reads one stream to its end; progressed says whether any message
// arrived, and answered is called at the first.
func (w *Watcher) once(ctx context.Context, q v1alpha1.EventQuery, t *tracker, handle func(*v1alpha1.StreamMessage) error, answered func()) (progressed bool, err error) {
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idle *time.Timer
	if w.IdleTimeout > 0 {
		idle = time.AfterFunc(w.IdleTimeout, func() {
			cancel(fmt.Errorf("%w within %s: is the agent overloaded, or the path to it stalled?", ErrIdle, w.IdleTimeout))
		})
		defer idle.Stop()
	}
	s, err := w.Open(sctx, q)
	if err != nil {
		if c := context.Cause(sctx); errors.Is(c, ErrIdle) {
			return false, c
		}
		return false, err
	}
	defer s.Close()
	for {
		m, err := s.Next()
		if err != nil {
			if c := context.Cause(sctx); errors.Is(c, ErrIdle) {
				return progressed, c
			}
			if errors.Is(err, io.EOF) {
				return progressed, errors.New("the agent ended the stream")
			}
			return progressed, fmt.Errorf("reading the stream: %w", err)
		}
		if !progressed {
			answered()
		}
		progressed = true
		if idle != nil {
			idle.Reset(w.IdleTimeout)
		}
		out, end := t.accept(m)
		for _, o := range out {
			if err := handle(o); err != nil {
				return progressed, handlerError{err}
			}
		}
		if end != nil {
			return progressed, end
		}
	}
}

// Default waits between attempts, for InitialBackoff and MaxBackoff left
// zero.
const (
	defaultInitialBackoff = 500 * time.Millisecond
	defaultMaxBackoff     = 10 * time.Second
)

// backoff returns the waits before consecutive attempts, one Step per
// attempt: InitialBackoff, doubled for each further attempt up to
// MaxBackoff, each with up to a fifth more at random.
func (w *Watcher) backoff() wait.Backoff {
	initial, maxWait := w.InitialBackoff, w.MaxBackoff
	if initial <= 0 {
		initial = defaultInitialBackoff
	}
	if maxWait <= 0 {
		maxWait = defaultMaxBackoff
	}
	return wait.Backoff{Duration: min(initial, maxWait), Factor: 2, Jitter: 0.2, Cap: maxWait, Steps: math.MaxInt32}
}

// tracker holds the position in the agent's sequence.
type tracker struct {
	// last is the highest sequence number delivered (or skipped by a gap);
	// have says whether there is one.
	last uint64
	have bool
	// epoch is the agent process that numbered last.
	epoch string
	// filtered says the stream leaves events out, so holes in the
	// sequence are expected.
	filtered bool
	// until is where a bounded stream ends, as the agent resolved it;
	// bounded says whether there is one.
	until   uint64
	bounded bool
}

// accept turns one message of the stream into the messages to deliver, and
// says whether the stream must end (lagging, restart).
func (t *tracker) accept(m *v1alpha1.StreamMessage) ([]*v1alpha1.StreamMessage, error) {
	if m.Type == v1alpha1.MessageReset {
		// The agent restarted; what follows is numbered anew.
		t.last, t.have, t.epoch = 0, true, m.Epoch
		return []*v1alpha1.StreamMessage{m}, nil
	}
	if m.Epoch != "" && t.epoch != m.Epoch {
		if t.epoch != "" && t.have {
			// Another agent process without a reset: only when the
			// agent did not know our epoch. Start over with it.
			t.last = 0
		}
		t.epoch = m.Epoch
	}
	switch m.Type {
	case v1alpha1.MessageEvent:
		if m.Event == nil {
			return nil, nil
		}
		seq := m.Event.Seq
		if t.have && seq <= t.last {
			return nil, nil // already delivered
		}
		var out []*v1alpha1.StreamMessage
		if t.have && !t.filtered && seq > t.last+1 {
			out = append(out, &v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: t.last + 1, To: seq - 1, Time: m.Time})
		}
		t.last, t.have = seq, true
		return append(out, m), nil
	case v1alpha1.MessageGap:
		if t.have && m.To <= t.last {
			return nil, nil
		}
		if t.have && m.From <= t.last {
			c := *m
			c.From = t.last + 1
			m = &c
		}
		t.last, t.have = m.To, true
		return []*v1alpha1.StreamMessage{m}, nil
	case v1alpha1.MessageSnapshot:
		t.last, t.have = m.Seq, true
		return []*v1alpha1.StreamMessage{m}, nil
	case v1alpha1.MessageHeartbeat:
		// Seq is the stream's position: events up to it were sent or
		// filtered out. A plain stream opens with one, so that even a
		// position of 0 (an agent with no events yet) is resumed from.
		if !t.have || m.Seq > t.last {
			t.last, t.have = m.Seq, true
		}
		if m.Until != nil && !t.bounded {
			t.until, t.bounded = *m.Until, true
		}
		return nil, nil
	case v1alpha1.MessageEnd:
		return nil, errEnded
	case v1alpha1.MessageLagging:
		return nil, fmt.Errorf("the agent dropped this client for reading too slowly (after seq %d)", m.Seq)
	}
	return nil, nil
}
