package merge

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// SourceStats counts what one source sent and what the merge made of it.
type SourceStats struct {
	// Source is the source's name.
	Source string `json:"source"`
	// Seen is true once the source has sent a SET.
	Seen bool `json:"seen"`
	// Updates is the number of updates the source sent.
	Updates int64 `json:"updates"`
	// Pods is the number of pods the source has now.
	Pods int `json:"pods"`
	// LastUpdate is when the source last sent an update.
	LastUpdate time.Time `json:"lastUpdate"`
	// Added, Updated, Deleted, Removed and Reconciled count the pods the
	// merge found added, changed, gracefully deleted, removed and changed in
	// status only, over every update of the source.
	Added      int64 `json:"added"`
	Updated    int64 `json:"updated"`
	Deleted    int64 `json:"deleted"`
	Removed    int64 `json:"removed"`
	Reconciled int64 `json:"reconciled"`
}

// count records one merged update. It runs with mu held.
func (s *storage) count(source string, u PodUpdate, now time.Time, pods int, c changes) {
	st := s.stats[source]
	if st == nil {
		st = &SourceStats{Source: source}
		s.stats[source] = st
	}
	st.Updates++
	st.Pods = pods
	st.LastUpdate = now
	st.Added += int64(len(c.adds))
	st.Updated += int64(len(c.updates))
	st.Deleted += int64(len(c.deletes))
	st.Removed += int64(len(c.removes))
	st.Reconciled += int64(len(c.reconciles))
}

// sourceStats returns the counters of every source that has sent an update,
// sorted by source name.
func (s *storage) sourceStats() []SourceStats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]SourceStats, 0, len(s.stats))
	for name, st := range s.stats {
		c := *st
		_, c.Seen = s.seen[name]
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b SourceStats) int { return strings.Compare(a.Source, b.Source) })
	return out
}

// seenSources returns the sorted names of the sources that have sent a SET.
func (s *storage) seenSources() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.seen))
}

// hasSeen reports whether every named source has sent a SET.
func (s *storage) hasSeen(sources ...string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, name := range sources {
		if _, ok := s.seen[name]; !ok {
			return false
		}
	}
	return true
}
