//go:build linux

package main

import (
	"errors"
	"fmt"
	"strings"
)

// reportJournal prints what the journal cost the agent process, from a run
// with it off and one with it on: CPU per published event and RSS. With it
// on, it fails when the journal outgrew its size bound, failed a write or
// fell so far behind that it dropped events unwritten.
func reportJournal(c streamConfig, runs []streamRun) error {
	var off, on *streamRun
	for i := range runs {
		if runs[i].journal {
			on = &runs[i]
		} else {
			off = &runs[i]
		}
	}
	if on == nil {
		return nil
	}
	m := on.metrics
	bytes, events := m["podsrc_journal_bytes"], m["podsrc_journal_events"]
	dropped := func(bound string) float64 {
		return m[fmt.Sprintf("podsrc_journal_dropped_events_total{bound=%q}", bound)]
	}
	fmt.Printf("\njournal (--journal-max-bytes %s)\n", mib(c.journalMaxBytes))
	fmt.Printf("  kept             %.0f events in %s; dropped %.0f for size, %.0f for age, %.0f for backlog; %.0f write errors\n",
		events, mib(int64(bytes)), dropped("size"), dropped("age"), dropped("backlog"), m["podsrc_journal_write_errors_total"])
	if n := m["podsrc_journal_commit_duration_seconds_count"]; n > 0 {
		fmt.Printf("  commits          %.0f, mean %.2f ms each (fsync included)\n", n, 1000*m["podsrc_journal_commit_duration_seconds_sum"]/n)
	}
	if off != nil && off.res.Published > 0 && on.res.Published > 0 {
		perOff := off.res.CPU.Seconds() / float64(off.res.Published)
		perOn := on.res.CPU.Seconds() / float64(on.res.Published)
		fmt.Printf("  cost per event   %.2f µs of agent CPU with the journal, %.2f µs without: %+.2f µs (%.2f×)\n",
			1e6*perOn, 1e6*perOff, 1e6*(perOn-perOff), perOn/perOff)
		fmt.Printf("  agent RSS        max %s with the journal, %s without (%.2f×)\n",
			mib(on.res.RSSMax), mib(off.res.RSSMax), float64(on.res.RSSMax)/float64(off.res.RSSMax))
	}
	var problems []string
	if bytes > float64(c.journalMaxBytes) {
		problems = append(problems, fmt.Sprintf("the journal holds %s, over its bound %s", mib(int64(bytes)), mib(c.journalMaxBytes)))
	}
	if n := m["podsrc_journal_write_errors_total"]; n > 0 {
		problems = append(problems, fmt.Sprintf("%.0f write errors", n))
	}
	if n := dropped("backlog"); n > 0 {
		problems = append(problems, fmt.Sprintf("%.0f events dropped unwritten: the writer fell behind", n))
	}
	if events == 0 {
		problems = append(problems, "the journal kept no event")
	}
	if len(problems) > 0 {
		fmt.Printf("  verdict          FAIL: %s\n", strings.Join(problems, "; "))
		return errors.New("the journal missed its bounds")
	}
	fmt.Printf("  verdict          PASS: within its size bound, no write failed, none dropped for backlog\n")
	return nil
}
