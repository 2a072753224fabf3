package printers

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Why prints a why report as a checklist: one row per stage with its
// verdict and what was found (every stage's evidence with -o wide), the
// first stage at fault highlighted and the stages after it faint, then
// that stage's evidence and the suggested fix.
type Why struct {
	Report v1alpha1.WhyReport
}

// Items implements Printable: the report, named after its pod.
func (w Why) Items() []Item { return []Item{reportItem(w.Report)} }

// Tables implements Printable.
func (w Why) Tables([]Item, time.Time) []*Table {
	r := w.Report
	t := &Table{Columns: []metav1.TableColumnDefinition{
		col("Stage", false), col("Verdict", false), col("Message", false), col("Evidence", true),
	}}
	past := false
	for _, s := range r.Stages {
		var c Color
		switch {
		case past:
			c = Faint
		case s.Name == r.Stage && s.Verdict == v1alpha1.VerdictFailing:
			c, past = Red, true
		case s.Name == r.Stage:
			c, past = Yellow, true
		case s.Verdict == v1alpha1.VerdictOK:
			c = Green
		case s.Verdict == v1alpha1.VerdictUnknown:
			c = Yellow
		}
		t.Rows = append(t.Rows, Row{Cells: []any{s.Name, s.Verdict, orNone(s.Message), joinOrNone(s.Evidence, "; ")}, Color: c})
	}
	tables := []*Table{whyPodTable(r), t}
	for _, s := range r.Stages {
		if s.Name == r.Stage && len(s.Evidence) > 0 {
			ev := &Table{Columns: []metav1.TableColumnDefinition{col("Evidence of "+s.Name, false)}}
			for _, e := range s.Evidence {
				ev.Rows = append(ev.Rows, Row{Cells: []any{e}})
			}
			tables = append(tables, ev)
		}
	}
	if r.Suggestion != "" {
		fix := &Table{Columns: []metav1.TableColumnDefinition{col("Suggested Fix", false)}}
		fix.Rows = append(fix.Rows, Row{Cells: []any{r.Suggestion}})
		tables = append(tables, fix)
	}
	return tables
}

// whyPodTable is the head of a report: the pod, where it comes from and
// the verdict.
func whyPodTable(r v1alpha1.WhyReport) *Table {
	t := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Pod", false), col("Source", false), col("Origin", false), col("Verdict", false),
		col("UID", true), col("Config Hash", true),
	}}
	c := verdictColor(r.Verdict)
	t.Rows = append(t.Rows, Row{Cells: []any{
		r.NodeName, podName(r), orNone(r.Pod.Source), orNone(r.Pod.Origin), r.Verdict,
		orNone(string(r.Pod.UID)), orNone(r.Pod.ConfigHash),
	}, Color: c})
	return t
}

// WhyReports prints why --all: one line per pod that is not ok.
type WhyReports struct {
	Reports []v1alpha1.WhyReport
}

// Items implements Printable: one report per pod.
func (w WhyReports) Items() []Item {
	out := make([]Item, 0, len(w.Reports))
	for _, r := range w.Reports {
		out = append(out, reportItem(r))
	}
	return out
}

// Tables implements Printable: ORIGIN tells apart the reports of two
// manifests of one pod; a message or fix too long for its cell is printed
// in full under the row.
func (w WhyReports) Tables(items []Item, _ time.Time) []*Table {
	cols := WhyColumns()
	t := cols.Table()
	for _, it := range items {
		r := it.Wire.(v1alpha1.WhyReport)
		_, below := placeLong(orNone(stageMessage(r)), "")
		_, fixBelow := placeLong(orNone(r.Suggestion), "fix")
		t.Rows = append(t.Rows, Row{Cells: cols.Cells(r), Color: verdictColor(r.Verdict), Below: below, WideBelow: fixBelow})
	}
	return []*Table{t}
}

// reportOrigin is where a report's pod came from: its manifest's path or
// its static pod URL, api for a pod of the API server.
func reportOrigin(p v1alpha1.WhyPod) string {
	if p.Origin == "" && p.Source == v1alpha1.SourceAPI {
		return v1alpha1.SourceAPI
	}
	return orNone(p.Origin)
}

// reportItem is a report as an item: named after its pod, or its target
// when the pod is not known.
func reportItem(r v1alpha1.WhyReport) Item {
	r.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindWhyReport)
	name := r.Pod.Name
	if name == "" {
		name = r.Target
	}
	return Item{Wire: r, Name: name, Namespace: r.Pod.Namespace, UID: string(r.Pod.UID), Node: r.NodeName}
}

// podName names a report's pod namespace/name, or its target when the pod
// is not known.
func podName(r v1alpha1.WhyReport) string {
	if r.Pod.Name == "" {
		return orNone(r.Target)
	}
	return strings.TrimPrefix(r.Pod.Namespace+"/"+r.Pod.Name, "/")
}

// verdictColor is the color of a verdict.
func verdictColor(v string) Color {
	switch v {
	case v1alpha1.VerdictOK:
		return Green
	case v1alpha1.VerdictFailing:
		return Red
	}
	return Yellow
}

// WhyColumns are the columns of why --all, one row per report; a message
// or fix too long for its cell is printed in full under the row
// (placeLong).
func WhyColumns() Columns[v1alpha1.WhyReport] {
	return Columns[v1alpha1.WhyReport]{
		{Header: "Node", Path: ".nodeName", Help: "The node the report is about.", Cell: func(r v1alpha1.WhyReport) any { return r.NodeName }},
		{Header: "Pod", Path: ".metadata.name", Help: "The pod the report is about.", Cell: func(r v1alpha1.WhyReport) any { return podName(r) }},
		{Header: "Source", Path: ".pod.source", Help: "The source that configures the pod.", Cell: func(r v1alpha1.WhyReport) any { return orNone(r.Pod.Source) }},
		{Header: "Origin", Path: ".pod.origin", Help: "A static pod's manifest path or static pod URL.", Cell: func(r v1alpha1.WhyReport) any { return reportOrigin(r.Pod) }},
		{Header: "Verdict", Path: ".verdict", Help: "The report's verdict: ok, failing or unknown.", Cell: func(r v1alpha1.WhyReport) any { return r.Verdict }},
		{Header: "Stage", Path: ".stage", Help: "The first stage of the pod's path whose verdict is not ok.", Cell: func(r v1alpha1.WhyReport) any { return orNone(r.Stage) }},
		{Header: "Message", Help: "What the failing stage says (printed in full under the row when long).", Cell: func(r v1alpha1.WhyReport) any {
			cell, _ := placeLong(orNone(stageMessage(r)), "")
			return cell
		}},
		{Header: "Suggested Fix", Wide: true, Path: ".suggestion", Help: "What to run or change next (printed in full under the row when long).", Cell: func(r v1alpha1.WhyReport) any {
			cell, _ := placeLong(orNone(r.Suggestion), "fix")
			return cell
		}},
	}
}

// stageMessage is the message of the report's stage at fault.
func stageMessage(r v1alpha1.WhyReport) string {
	for _, s := range r.Stages {
		if s.Name == r.Stage {
			return s.Message
		}
	}
	return ""
}
