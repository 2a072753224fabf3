package serve

import (
	"time"

	"github.com/podsrc/podsrc/pkg/eventring"
)

// History is what a stream reads when it resumes from events older than
// the event ring keeps: the agent's journal (journal.Journal).
type History interface {
	// Read fills b as eventring.Ring.Read does, with the events after
	// after that it holds; b.Wake is not used.
	Read(b *eventring.Batch, after uint64, max int) error
	// SeqAt is eventring.Ring.SeqAt over the events it holds.
	SeqAt(t time.Time) (uint64, error)
}
