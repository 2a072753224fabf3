package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Bounds on what the client reads from an agent, so that a bad agent or
// proxy cannot make it buffer without end.
const (
	// maxBody bounds the answer of a request other than the event stream:
	// four times the list of 5,000 pods with two containers each (3.8 MiB
	// as measured), and more than a static pod file may hold (the kubelet
	// reads at most 10 MiB).
	maxBody = 16 << 20
	// maxLine bounds one message of the event stream: a snapshot of
	// 5,000 pods takes about half of it.
	maxLine = 8 << 20
	// maxHistory bounds the events History reads: four times the events
	// an agent keeps by default (its --event-buffer, 10,000).
	maxHistory = 40000
)

// readBody reads the answer of path, failing with ReasonTooLarge rather than
// reading more than maxBody, and charges its bytes to the command's budget:
// the caller gives them back (unhold) once it has decoded them.
func (a *Agent) readBody(ctx context.Context, path string, resp *http.Response) ([]byte, error) {
	if resp.ContentLength > maxBody {
		return nil, a.tooLargeError(path)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, a.transportError(ctx, fmt.Errorf("reading the answer of %s: %w", path, err))
	}
	if len(body) > maxBody {
		return nil, a.tooLargeError(path)
	}
	if !a.hold(int64(len(body))) {
		return nil, a.budget.spentError(a, "the answer of "+path)
	}
	return body, nil
}

// tooLargeError says that the answer of path exceeds maxBody.
func (a *Agent) tooLargeError(path string) error {
	return newError(ReasonTooLarge, nil, "%s answered %s with more than %d MiB, the most kubectl-podsrc reads: check that a podsrc agent answers there (kubectl podsrc version %s), and narrow the request where it can be (pods --source)", a, path, maxBody>>20, a.nodeArg())
}

// lineTooLongError says that a message of the event stream exceeds
// maxLine.
func (a *Agent) lineTooLongError() error {
	return newError(ReasonTooLarge, nil, "%s sent a stream message longer than %d MiB, the most kubectl-podsrc reads: a --snapshot of very many pods? Watch without --snapshot and list the pods with kubectl podsrc pods %s", a, maxLine>>20, a.nodeArg())
}

// historyTooLongError says that the agent sent more than maxHistory events
// of history before its last one.
func (a *Agent) historyTooLongError(last uint64) error {
	return newError(ReasonTooLarge, nil, "%s sent more than %d events of history without reaching its last event %d, the most kubectl-podsrc reads: check that a podsrc agent answers there (kubectl podsrc version %s), or give the agent an --event-buffer of at most %d", a, maxHistory, last, a.nodeArg(), maxHistory)
}

// nodeArg is how commands name this agent's node: the node, or
// --agent-url.
func (a *Agent) nodeArg() string {
	if a.Node != "" {
		return a.Node
	}
	return "--agent-url=" + a.target
}
