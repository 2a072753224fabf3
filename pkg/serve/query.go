package serve

import (
	"fmt"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// checkAhead refuses a since that is ahead of the agent's last sequence
// number last in its own epoch (or with none given): the client's number
// is not this agent's, and waiting for it would be silence.
func checkAhead(q v1alpha1.EventQuery, last uint64, epoch string) error {
	if q.Since == nil || q.Since.IsAge || q.Since.Seq <= last || (q.Epoch != "" && q.Epoch != epoch) {
		return nil
	}
	return fmt.Errorf("since=%d is ahead of the agent's last event %d (epoch %s): resume with a since of at most %d, or leave since out to start with new events",
		q.Since.Seq, last, epoch, last)
}

// seqOf returns the sequence number a mark stands for in the event ring: a
// sequence number as it is, an age as the last event older than it, now as
// the last event.
func seqOf(events *eventring.Ring, m v1alpha1.Mark, now time.Time) uint64 {
	switch {
	case !m.IsAge:
		return m.Seq
	case m.Age == 0:
		return events.LastSeq()
	}
	return events.SeqAt(now.Add(-m.Age))
}
