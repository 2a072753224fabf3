package client

import (
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"
)

// DefaultBudget is the bytes a command holds of what its agents sent,
// across nodes, unless told otherwise.
const DefaultBudget = 256 << 20

// Budget bounds the memory one command holds of what agents sent, across
// all its nodes, measured on what is held rather than on the bytes
// received: an answer's body while it is decoded, then the decoded answer
// (memsize.Of), each item of a list charged as it is decoded, so that a
// list that does not fit fails at its first item past the bound; the
// events of a history; and what the printers hold to print at the end
// (Take). The messages of a live stream, printed as they come, are not
// charged, and an answer printed and let go is given back
// (Agent.Release). A nil Budget is unlimited.
type Budget struct {
	total int64
	used  atomic.Int64
}

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget { return &Budget{total: n} }

// Take charges n bytes, reporting whether they fit; bytes that do not fit
// are not charged.
func (b *Budget) Take(n int64) bool {
	if b == nil {
		return true
	}
	if b.used.Add(n) > b.total {
		b.used.Add(-n)
		return false
	}
	return true
}

// Give gives n bytes back.
func (b *Budget) Give(n int64) {
	if b != nil {
		b.used.Add(-n)
	}
}

// String is the budget's size, as --max-bytes takes it (256Mi).
func (b *Budget) String() string {
	return resource.NewQuantity(b.total, resource.BinarySI).String()
}

// spentError says that holding what a sent would take the command past
// the budget, and what to run instead.
func (b *Budget) spentError(a *Agent, what string) error {
	return newError(ReasonTooLarge, nil, "holding %s from %s would take this command past the %s it holds of what agents sent, across nodes (--max-bytes): ask fewer nodes at once (name the nodes, or a narrower --node-selector), narrow the request (pods --source or -l, a pod's why), or raise --max-bytes", what, a, b)
}
