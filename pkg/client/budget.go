package client

import "sync/atomic"

// DefaultBudget is the bytes a command reads from its agents, across
// nodes, unless told otherwise.
const DefaultBudget = 256 << 20

// Budget bounds the bytes one command reads from agents across all its
// nodes: the answers of snapshot requests and the history of the event
// stream, which it holds until it prints. The messages of a live stream,
// printed as they come, are not charged, and an answer printed and let go
// is given back (Agent.Release). A nil Budget is unlimited.
type Budget struct {
	total int64
	used  atomic.Int64
}

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget { return &Budget{total: n} }

// take charges n bytes, reporting whether they fit.
func (b *Budget) take(n int) bool {
	if b == nil {
		return true
	}
	return b.used.Add(int64(n)) <= b.total
}

// give gives n bytes back.
func (b *Budget) give(n int64) {
	if b != nil {
		b.used.Add(-n)
	}
}

// spentError says that reading what a asked for exceeded the budget.
func (b *Budget) spentError(a *Agent, what string) error {
	return newError(ReasonTooLarge, nil, "reading %s from %s went past the %d MiB this command reads from agents across nodes (--max-bytes): ask fewer nodes at once, narrow the request (pods --source, a pod's why), or raise --max-bytes", what, a, b.total>>20)
}
