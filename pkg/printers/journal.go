package printers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// journalState is the JOURNAL cell of the sources table: whether the
// node's agent keeps its events, how many and since when, what its bounds
// dropped and its failed writes; <none> from an agent that does not say.
// What the agent wrote is escaped, and its error cut to one short line.
func journalState(now time.Time, j *v1alpha1.JournalStatus) string {
	switch {
	case j == nil:
		return none
	case j.State == v1alpha1.JournalFailed:
		return brief(j.State + ": " + j.Error)
	case j.State != v1alpha1.JournalOn:
		return brief(j.State)
	}
	s := fmt.Sprintf("on: %d events, %s of %s", j.Events, mebibytes(j.Bytes), mebibytes(j.MaxBytes))
	if j.Oldest != nil {
		s += ", oldest " + ageOf(now, j.Oldest) + " ago"
	}
	if len(j.Dropped) > 0 {
		var dropped []string
		for _, bound := range slices.Sorted(maps.Keys(j.Dropped)) {
			dropped = append(dropped, fmt.Sprintf("%d (%s)", j.Dropped[bound], brief(bound)))
		}
		s += ", dropped " + strings.Join(dropped, ", ")
	}
	if j.WriteErrors > 0 {
		s += fmt.Sprintf(", %d failed writes", j.WriteErrors)
	}
	return s
}

// mebibytes formats n bytes in MiB, to a tenth.
func mebibytes(n int64) string {
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}
