package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/memsize"
)

// Stream reads the messages of /api/v1alpha1/events as they arrive.
type Stream struct {
	agent   *Agent
	body    io.ReadCloser
	scanner *bufio.Scanner
	// budget, when set, is charged what each decoded message holds: the
	// events of a history, which the caller holds.
	budget *Budget
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
	return &Stream{agent: a, body: resp.Body, scanner: sc}, nil
}

// Next returns the next message; io.EOF when the agent ended the stream, an
// error of ReasonTooLarge for a message longer than maxLine.
func (s *Stream) Next() (*v1alpha1.StreamMessage, error) {
	for s.scanner.Scan() {
		line := s.scanner.Bytes()
		if len(line) == 0 {
			continue
		}
		m := &v1alpha1.StreamMessage{}
		if err := json.Unmarshal(line, m); err != nil {
			return nil, fmt.Errorf("decoding a stream message: %w", err)
		}
		if s.budget != nil && !s.budget.Take(memsize.Of(m)) {
			return nil, s.budget.spentError(s.agent, "the event history")
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
