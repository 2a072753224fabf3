package client

import (
	"context"
	"fmt"
	"io"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// History returns the events the agent still holds that pass filter's
// filters (its Since, Until and Tail are History's own), oldest first, up
// to the last one it had numbered when asked, and whether it had evicted
// older ones: it learns that number from a plain stream's first heartbeat,
// then reads a stream from the first event until the agent ends it there,
// and fails rather than read more than maxHistory events or past the
// command's Budget. The agent applies the filters, so that a pod's history
// (filter.Pods) costs no more than that pod's events.
func (a *Agent) History(ctx context.Context, filter v1alpha1.EventQuery) (events []v1alpha1.Event, missed bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	last, err := a.lastSeq(ctx)
	if err != nil {
		return nil, false, err
	}
	out := []v1alpha1.Event{}
	if last == 0 {
		return out, false, nil
	}
	q := filter
	q.Since, q.Until, q.Tail, q.Epoch, q.Snapshot = v1alpha1.SeqMark(0), v1alpha1.SeqMark(last), 0, "", false
	s, err := a.Events(ctx, q)
	if err != nil {
		return nil, false, err
	}
	defer s.Close()
	s.budget = a.budget
	for {
		m, err := s.Next()
		if err != nil {
			return nil, false, fmt.Errorf("reading the history of %s: %w", a, noEOF(err))
		}
		switch {
		case m.Type == v1alpha1.MessageEvent && m.Event != nil:
			if len(out) == maxHistory {
				return nil, false, a.historyTooLongError(last)
			}
			out = append(out, *m.Event)
			if m.Event.Seq >= last {
				return out, missed, nil
			}
		case m.Type == v1alpha1.MessageGap:
			missed = true
			if m.To >= last {
				return out, missed, nil
			}
		case m.Type == v1alpha1.MessageEnd, m.Type == v1alpha1.MessageHeartbeat && m.Seq >= last:
			return out, missed, nil
		case m.Type == v1alpha1.MessageLagging, m.Type == v1alpha1.MessageReset:
			return nil, false, fmt.Errorf("reading the history of %s: the stream ended with %s", a, m.Type)
		}
	}
}

// lastSeq returns the sequence number of the agent's last event, which a
// plain stream's first heartbeat carries.
func (a *Agent) lastSeq(ctx context.Context) (uint64, error) {
	s, err := a.Events(ctx, v1alpha1.EventQuery{})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	m, err := s.Next()
	if err != nil {
		return 0, fmt.Errorf("reading the first message of %s's event stream: %w", a, noEOF(err))
	}
	if m.Type != v1alpha1.MessageHeartbeat {
		return 0, fmt.Errorf("%s's event stream began with %q, not a heartbeat", a, m.Type)
	}
	return m.Seq, nil
}

// noEOF turns the end of a stream into an error that says so.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
