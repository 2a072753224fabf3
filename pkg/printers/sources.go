package printers

import (
	"strings"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Sources prints the pod sources of nodes: one row per node and source.
type Sources struct {
	Lists []v1alpha1.SourceList
}

// Items implements Printable: every node's Sources, with their kind, node
// and the node's allSourcesSeen. A node without sources gives a Source with
// only those, so that it still has a row.
func (s Sources) Items() []Item {
	var out []Item
	for _, l := range s.Lists {
		srcs := l.Items
		if len(srcs) == 0 {
			srcs = []v1alpha1.Source{{}}
		}
		for _, src := range srcs {
			src.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindSource)
			src.NodeName, src.AllSourcesSeen, src.Journal = l.NodeName, l.AllSourcesSeen, l.Journal
			out = append(out, Item{Wire: src, Name: src.Name, Node: l.NodeName})
		}
	}
	return out
}

// Tables implements Printable: the columns of SourceColumns, a node
// without sources on a yellow row of its own.
func (s Sources) Tables(items []Item, now time.Time) []*Table {
	cols := SourceColumns()
	t := cols.Table()
	mode := map[string]string{}
	for _, l := range s.Lists {
		mode[l.NodeName] = l.Mode
	}
	for i := range items {
		r := sourceRow{Source: items[i].Wire.(v1alpha1.Source), Now: now}
		r.Mode = mode[r.Source.NodeName]
		var c Color
		switch src := r.Source; {
		case src.Name == "":
			c = Yellow
		case src.LastError != "":
			c = Red
		case sourceErrors(src) > 0 || sourceWarnings(src) > 0 || !src.Seen:
			c = Yellow
		}
		t.Rows = append(t.Rows, Row{Cells: cols.Cells(r), Color: c, Item: &items[i]})
	}
	return []*Table{t}
}

// sourceRow is what a cell of the sources table reads: the source, its
// node's mode and the time ages are computed against. A Source without a
// name stands for a node without sources.
type sourceRow struct {
	Source v1alpha1.Source
	Mode   string
	Now    time.Time
}

// SourceColumns are the sources table's columns; -o wide shows errors
// shortened to one line (brief).
func SourceColumns() Columns[sourceRow] {
	// named returns f's cell, or none for a node without sources.
	named := func(f func(v1alpha1.Source) any) func(sourceRow) any {
		return func(r sourceRow) any {
			if r.Source.Name == "" {
				return none
			}
			return f(r.Source)
		}
	}
	return Columns[sourceRow]{
		{Header: "Node", Path: ".nodeName", Help: "The node whose kubelet has the source.", Cell: func(r sourceRow) any { return r.Source.NodeName }},
		{Header: "Source", Path: ".metadata.name", Help: "The pod source: file (static pod path), http (static pod URL) or api (the API server).", Cell: named(func(s v1alpha1.Source) any { return s.Name })},
		{Header: "Target", Path: ".target", Help: "What the source reads: the static pod path, the static pod URL (credentials masked) or the API server.", Cell: named(func(s v1alpha1.Source) any { return orNone(s.Target) })},
		{Header: "Seen", Path: ".seen", Help: "Whether the source has sent its first notification.", Cell: named(func(s v1alpha1.Source) any { return yesNo(s.Seen) })},
		{Header: "Ready", Path: ".allSourcesSeen", Help: "Whether every source was seen, as the kubelet's sources-ready check asks.", Cell: func(r sourceRow) any { return yesNo(r.Source.AllSourcesSeen) }},
		{Header: "Pods", Path: ".pods", Help: "The pods the source configures.", Cell: func(r sourceRow) any { return itoa(r.Source.Pods) }},
		{Header: "Last Update", Path: ".lastUpdate", Help: "Time since the source's last notification.", Cell: func(r sourceRow) any {
			if r.Source.Name == "" {
				return none
			}
			return ageOf(r.Now, r.Source.LastUpdate)
		}},
		{Header: "Errors", Help: "The source's rejected files, and its last error unless that is a rejected file's.", Cell: func(r sourceRow) any { return itoa(sourceErrors(r.Source)) }},
		{Header: "Warnings", Help: "The files the kubelet's decoder accepted with a warning.", Cell: func(r sourceRow) any { return itoa(sourceWarnings(r.Source)) }},
		{Header: "Updates", Wide: true, Path: ".updates", Help: "The notifications the source has sent.", Cell: func(r sourceRow) any { return itoa(r.Source.Updates) }},
		{Header: "Mode", Wide: true, Help: "The merge's notification mode (incremental, snapshot-and-updates or snapshot).", Cell: func(r sourceRow) any { return orNone(r.Mode) }},
		{Header: "Last Error", Wide: true, Path: ".lastError", Help: "The source's last error, on one line.", Cell: sourceLastError},
		{Header: "Rejected Files", Wide: true, Help: "The files the source could not decode, with their error.", Cell: named(func(s v1alpha1.Source) any { return brief(joinOrNone(rejectedFiles(s), "; ")) })},
		{Header: "Shadowed Files", Wide: true, Help: "The files whose pod another file of the same name configures instead.", Cell: named(func(s v1alpha1.Source) any { return brief(joinOrNone(shadowedFiles(s), "; ")) })},
		{Header: "Warned Files", Wide: true, Help: "The files decoded with a warning, with the warning.", Cell: named(func(s v1alpha1.Source) any { return brief(joinOrNone(warnedFiles(s), "; ")) })},
		{Header: "Journal", Wide: true, Path: ".journal.state", Help: "The state of the agent's event journal, which keeps its events across restarts.", Cell: func(r sourceRow) any { return journalState(r.Now, r.Source.Journal) }},
	}
}

// sourceErrors counts the source's errors: its rejected files, and its
// last error unless it is a rejected file's (counted once).
func sourceErrors(src v1alpha1.Source) int {
	errs := len(src.RejectedFiles)
	lastIsRejected := false
	for _, r := range src.RejectedFiles {
		lastIsRejected = lastIsRejected || strings.Contains(src.LastError, r.Error)
	}
	if src.LastError != "" && !lastIsRejected {
		errs++
	}
	return errs
}

// rejectedFiles are the errors of the source's rejected files, each naming
// its file.
func rejectedFiles(src v1alpha1.Source) []string {
	var out []string
	for _, r := range src.RejectedFiles {
		if strings.Contains(r.Error, r.Path) {
			out = append(out, r.Error)
		} else {
			out = append(out, r.Path+": "+r.Error)
		}
	}
	return out
}

// sourceWarnings counts the warnings of the source's files.
func sourceWarnings(src v1alpha1.Source) int {
	n := 0
	for _, w := range src.WarnedFiles {
		n += len(w.Warnings)
	}
	return n
}

// warnedFiles are the warnings of the source's files, each naming its file.
func warnedFiles(src v1alpha1.Source) []string {
	var out []string
	for _, w := range src.WarnedFiles {
		for _, text := range w.Warnings {
			out = append(out, w.Path+": "+text)
		}
	}
	return out
}

// shadowedFiles are the source's shadowed files and what shadows them.
func shadowedFiles(src v1alpha1.Source) []string {
	var out []string
	for _, sh := range src.ShadowedFiles {
		out = append(out, sh.Path+" (by "+sh.By+")")
	}
	return out
}

// sourceLastError is the source's last error on one line, with its age.
func sourceLastError(r sourceRow) any {
	src := r.Source
	if src.LastError == "" {
		return none
	}
	s := brief(src.LastError)
	if src.LastErrorTime != nil {
		s += " (" + ageOf(r.Now, src.LastErrorTime) + " ago)"
	}
	return s
}
