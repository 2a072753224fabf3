package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Stream reads the messages of /api/v1alpha1/events as they arrive.
type Stream struct {
	agent   *Agent
	body    io.ReadCloser
	scanner *bufio.Scanner
	// unbounded says the query has an Until that the agent has not yet
	// confirmed with the heartbeat that opens a bounded stream.
	unbounded bool
	// pods, when set, is the pod filter of the query's snapshot, applied
	// to it again for agents older than the filter, which send every pod.
	pods *v1alpha1.PodQuery
	// budget, when set, is charged each message's bytes: those of a
	// history, which the caller holds.
	budget *Budget
	// handlers says the query filters by handler, which an agent older
	// than the handlers ignores.
	handlers bool
}

// Events opens the agent's event stream with query q.
func (a *Agent) Events(ctx context.Context, q v1alpha1.EventQuery) (*Stream, error) {
	resp, err := a.do(ctx, a.stream, v1alpha1.EventsPath, q.Encode())
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, a.statusError(ctx, v1alpha1.EventsPath, resp)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	st := &Stream{agent: a, body: resp.Body, scanner: sc, unbounded: q.Until != nil, handlers: len(q.Handlers) > 0}
	if pq := q.PodQuery(); q.Snapshot && pq.Filtered() && pq.Validate() == nil {
		st.pods = &pq
	}
	return st, nil
}

// Next returns the next message; io.EOF when the agent ended the stream, an
// error of ReasonTooLarge for a message longer than maxLine.
func (s *Stream) Next() (*v1alpha1.StreamMessage, error) {
	for s.scanner.Scan() {
		line := s.scanner.Bytes()
		if len(line) == 0 {
			continue
		}
		if !s.budget.take(len(line)) {
			return nil, s.budget.spentError(s.agent, "the event history")
		}
		m := &v1alpha1.StreamMessage{}
		if err := json.Unmarshal(line, m); err != nil {
			return nil, fmt.Errorf("decoding a stream message: %w", err)
		}
		if s.unbounded {
			switch {
			case m.Type == v1alpha1.MessageHeartbeat && m.Until != nil:
				s.unbounded = false
			case m.Type != v1alpha1.MessageReset:
				// An agent older than until would stream on forever.
				return nil, newError(ReasonSkew, nil, "%s does not end its event stream at --until: it is older than this kubectl-podsrc; upgrade it (%s)", s.agent, DeployCommand)
			}
		}
		if s.handlers && m.Event != nil && m.Event.Handler == "" {
			// Every config and PLEG event of a newer agent has one.
			return nil, newError(ReasonSkew, nil, "%s does not tell the kubelet's handler of its events, for --handler: it is older than this kubectl-podsrc; upgrade it (%s)", s.agent, DeployCommand)
		}
		if m.Type == v1alpha1.MessageSnapshot && m.Snapshot != nil && s.pods != nil {
			m.Snapshot.Items = slices.DeleteFunc(m.Snapshot.Items, func(p v1alpha1.PodInfo) bool { return !s.pods.Match(p) })
		}
		return m, nil
	}
	if err := s.scanner.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, s.agent.lineTooLongError()
		}
		return nil, err
	}
	return nil, io.EOF
}

// Close ends the stream.
func (s *Stream) Close() error {
	return s.body.Close()
}
