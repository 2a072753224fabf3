package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Window returns the events the agent holds after since (all when nil) up
// to its last one when asked, unfiltered, with the gaps between them, for
// an archive: the window (its epoch, start and end; no counts), the event
// and gap messages, oldest first, and the last sequence number of the
// oldest events it dropped (0 for none) to hold no more than maxBytes of
// messages (encoded as the agent sent them): those are the newest.
func (a *Agent) Window(ctx context.Context, since *v1alpha1.Mark, maxBytes int64) (w v1alpha1.ArchiveEvents, out []v1alpha1.StreamMessage, dropped uint64, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if since == nil {
		since = v1alpha1.SeqMark(0)
	}
	s, err := a.Events(ctx, v1alpha1.EventQuery{Since: since, Until: v1alpha1.AgeMark(0), Kinds: v1alpha1.EventKinds})
	if err != nil {
		return w, nil, 0, err
	}
	defer s.Close()
	var sizes []int64
	var held int64
	opened := false
	for {
		m, err := s.Next()
		if err != nil {
			return w, nil, 0, fmt.Errorf("reading the events of %s: %w", a, noEOF(err))
		}
		switch {
		case m.Type == v1alpha1.MessageHeartbeat && !opened:
			if m.Until == nil {
				return w, nil, 0, fmt.Errorf("reading the events of %s: its stream did not say where it ends: is it a podsrc agent?", a)
			}
			opened = true
			w = v1alpha1.ArchiveEvents{Epoch: m.Epoch, Since: m.Seq, Until: *m.Until}
		case !opened:
			return w, nil, 0, fmt.Errorf("reading the events of %s: its stream began with %q, not a heartbeat", a, m.Type)
		case m.Type == v1alpha1.MessageEvent && m.Event != nil, m.Type == v1alpha1.MessageGap:
			data, err := json.Marshal(m)
			if err != nil {
				return w, nil, 0, fmt.Errorf("reading the events of %s: %w", a, err)
			}
			out, sizes, held = append(out, *m), append(sizes, int64(len(data))+1), held+int64(len(data))+1
			for held > maxBytes && len(out) > 0 {
				if m := out[0]; m.Type == v1alpha1.MessageEvent {
					dropped = m.Event.Seq
				} else {
					dropped = m.To
				}
				held -= sizes[0]
				out, sizes = out[1:], sizes[1:]
			}
		case m.Type == v1alpha1.MessageEnd:
			return w, out, dropped, nil
		case m.Type == v1alpha1.MessageLagging, m.Type == v1alpha1.MessageReset:
			return w, nil, 0, fmt.Errorf("reading the events of %s: the stream ended with %s", a, m.Type)
		}
	}
}
