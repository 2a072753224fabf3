package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// EventsOptions selects the events of a stream.
type EventsOptions struct {
	// Since, when set, resumes after that sequence number (since=0 asks
	// for every event the agent still holds); Epoch is the agent process
	// that numbered it.
	Since *uint64
	Epoch string
	// SinceAge, when Since is not set, starts with the events of that last
	// while.
	SinceAge time.Duration
	// Snapshot asks for the pods' state first.
	Snapshot bool
	// Kind, Source and Namespace filter the events.
	Kind      string
	Source    string
	Namespace string
}

// Filtered reports whether the options leave events out, so that sequence
// numbers on the stream have holes.
func (o EventsOptions) Filtered() bool {
	return o.Kind != "" || o.Source != "" || o.Namespace != ""
}

// query returns the URL query of o.
func (o EventsOptions) query() url.Values {
	q := url.Values{}
	if o.Since != nil {
		q.Set("since", strconv.FormatUint(*o.Since, 10))
		if o.Epoch != "" {
			q.Set("epoch", o.Epoch)
		}
	} else if o.SinceAge > 0 {
		q.Set("since", o.SinceAge.String())
	}
	if o.Snapshot {
		q.Set("snapshot", "true")
	}
	if o.Kind != "" {
		q.Set("kind", o.Kind)
	}
	if o.Source != "" {
		q.Set("source", o.Source)
	}
	if o.Namespace != "" {
		q.Set("namespace", o.Namespace)
	}
	return q
}

// Stream reads the messages of /api/v1alpha1/events as they arrive.
type Stream struct {
	agent   *Agent
	body    io.ReadCloser
	scanner *bufio.Scanner
}

// Events opens the agent's event stream.
func (a *Agent) Events(ctx context.Context, opts EventsOptions) (*Stream, error) {
	resp, err := a.do(ctx, a.stream, APIPrefix+"/events", opts.query())
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, a.statusError(ctx, APIPrefix+"/events", resp)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &Stream{agent: a, body: resp.Body, scanner: sc}, nil
}

// Next returns the next message; io.EOF when the agent ended the stream, an
// error of KindTooLarge for a message longer than maxLine.
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
