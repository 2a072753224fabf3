package client

import (
	"context"
	"fmt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Window returns every event the agent holds after since (all when nil)
// up to its last one when asked, unfiltered, with the gaps between them,
// for an archive: the window (its epoch, start and end; no counts) and
// the event and gap messages, oldest first. It fails rather than read more
// than maxHistory events or past the command's Budget.
func (a *Agent) Window(ctx context.Context, since *v1alpha1.Mark) (v1alpha1.ArchiveEvents, []v1alpha1.StreamMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if since == nil {
		since = v1alpha1.SeqMark(0)
	}
	var w v1alpha1.ArchiveEvents
	s, err := a.Events(ctx, v1alpha1.EventQuery{Since: since, Until: v1alpha1.AgeMark(0)})
	if err != nil {
		return w, nil, err
	}
	defer s.Close()
	s.budget = a.budget
	var out []v1alpha1.StreamMessage
	opened, events := false, 0
	for {
		m, err := s.Next()
		if err != nil {
			return w, nil, fmt.Errorf("reading the events of %s: %w", a, noEOF(err))
		}
		switch {
		case m.Type == v1alpha1.MessageHeartbeat && !opened:
			if m.Until == nil {
				return w, nil, fmt.Errorf("reading the events of %s: its stream did not say where it ends: is it a podsrc agent?", a)
			}
			opened = true
			w = v1alpha1.ArchiveEvents{Epoch: m.Epoch, Since: m.Seq, Until: *m.Until}
		case !opened:
			return w, nil, fmt.Errorf("reading the events of %s: its stream began with %q, not a heartbeat", a, m.Type)
		case m.Type == v1alpha1.MessageEvent && m.Event != nil, m.Type == v1alpha1.MessageGap:
			if events++; events > maxHistory {
				return w, nil, a.historyTooLongError(w.Until)
			}
			out = append(out, *m)
		case m.Type == v1alpha1.MessageEnd:
			return w, out, nil
		case m.Type == v1alpha1.MessageLagging, m.Type == v1alpha1.MessageReset:
			return w, nil, fmt.Errorf("reading the events of %s: the stream ended with %s", a, m.Type)
		}
	}
}
