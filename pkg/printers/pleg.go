package printers

import (
	"sort"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PLEG prints the state of the nodes' PLEG: a summary per node, the CRI
// call latencies and the slowest pod inspections.
type PLEG struct {
	Statuses []v1alpha1.PLEGStatus
}

// Items implements Printable: one PLEGStatus per node, named after it.
func (p PLEG) Items() []Item {
	out := make([]Item, 0, len(p.Statuses))
	for _, s := range p.Statuses {
		s.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus)
		out = append(out, Item{Wire: s, Name: s.NodeName})
	}
	return out
}

// Tables implements Printable: the summary has a row per item; the CRI
// calls and slow pods follow the items' order.
func (p PLEG) Tables(items []Item, now time.Time) []*Table {
	sumCols := PLEGColumns()
	sum := sumCols.Table()
	calls := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Call", false), col("Count", false), col("Last", false),
		col("P50", false), col("P99", false), col("Max", false),
	}}
	slow := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Namespace", false), col("Slow Pod", false), col("Duration", false),
		col("Age", false), col("Error", false), col("UID", true),
	}}
	for i := range items {
		s := items[i].Wire.(v1alpha1.PLEGStatus)
		c := NoColor
		switch {
		case !s.Enabled:
			c = Faint
		case !s.Healthy:
			c = Red
		case s.ConsecutiveFailures > 0 || s.EventsDropped > 0:
			c = Yellow
		}
		sum.Rows = append(sum.Rows, Row{Cells: sumCols.Cells(plegRow{Status: s, Now: now}), Color: c, Item: &items[i]})
		names := make([]string, 0, len(s.Calls))
		for n := range s.Calls {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			l := s.Calls[n]
			calls.Rows = append(calls.Rows, Row{Cells: []any{s.NodeName, n, itoa(l.Count), Seconds(l.Last), Seconds(l.P50), Seconds(l.P99), Seconds(l.Max)}})
		}
		for _, sp := range s.SlowestPods {
			var rc Color
			if sp.Error != "" {
				rc = Red
			}
			slow.Rows = append(slow.Rows, Row{Cells: []any{s.NodeName, sp.Namespace, sp.Name, Seconds(sp.Seconds), Age(now, sp.Time.Time), orNone(sp.Error), string(sp.UID)}, Color: rc})
		}
	}
	return []*Table{sum, calls, slow}
}

// plegRow is what a cell of the PLEG summary reads: a node's PLEG status
// and the time ages are computed against.
type plegRow struct {
	Status v1alpha1.PLEGStatus
	Now    time.Time
}

// PLEGColumns are the PLEG summary's columns, one row per node. A disabled
// PLEG shows no figure, since none means anything; its message says why it
// is off.
func PLEGColumns() Columns[plegRow] {
	// figure returns f's cell, or nothing when the PLEG is disabled.
	figure := func(f func(plegRow) string) func(plegRow) any {
		return func(r plegRow) any {
			if !r.Status.Enabled {
				return ""
			}
			return f(r)
		}
	}
	return Columns[plegRow]{
		{Header: "Node", Path: ".metadata.name", Help: "The node whose PLEG the row is.", Cell: func(r plegRow) any { return r.Status.NodeName }},
		{Header: "Healthy", Path: ".healthy", Help: "Whether the PLEG is healthy as the kubelet's check says (a relist within the threshold); disabled when the agent runs no PLEG.", Cell: func(r plegRow) any {
			if !r.Status.Enabled {
				return "disabled"
			}
			return yesNo(r.Status.Healthy)
		}},
		{Header: "Last Relist", Path: ".lastRelist", Help: "Time since the last relist.", Cell: figure(func(r plegRow) string { return ageOf(r.Now, r.Status.LastRelist) })},
		{Header: "Relist P50", Help: "The median relist duration.", Cell: figure(func(r plegRow) string { return Seconds(r.Status.RelistDuration.P50) })},
		{Header: "Relist P99", Help: "The 99th percentile of the relist duration.", Cell: figure(func(r plegRow) string { return Seconds(r.Status.RelistDuration.P99) })},
		{Header: "Relist Max", Help: "The longest relist.", Cell: figure(func(r plegRow) string { return Seconds(r.Status.RelistDuration.Max) })},
		{Header: "Interval", Help: "The median time between two relists' starts.", Cell: figure(func(r plegRow) string { return Seconds(r.Status.RelistInterval.P50) })},
		{Header: "Failures", Help: "Relists that failed, and how many in a row now.", Cell: figure(func(r plegRow) string {
			f := itoa(r.Status.RelistFailures)
			if n := r.Status.ConsecutiveFailures; n > 0 {
				f += " (" + itoa(n) + " in a row)"
			}
			return f
		})},
		{Header: "Events Dropped", Path: ".eventsDropped", Help: "PLEG events lost to a full channel.", Cell: figure(func(r plegRow) string { return itoa(r.Status.EventsDropped) })},
		{Header: "Pods", Path: ".pods", Help: "The pods the PLEG's cache holds.", Cell: figure(func(r plegRow) string { return itoa(r.Status.Pods) })},
		{Header: "Relists", Wide: true, Path: ".relists", Help: "The relists since the agent started.", Cell: figure(func(r plegRow) string { return itoa(r.Status.Relists) })},
		{Header: "Interval Max", Wide: true, Help: "The longest time between two relists' starts.", Cell: figure(func(r plegRow) string { return Seconds(r.Status.RelistInterval.Max) })},
		{Header: "Running Pods", Wide: true, Path: ".runningPods", Help: "The pods the runtime runs, as the last relist found them.", Cell: figure(func(r plegRow) string { return itoa(r.Status.RunningPods) })},
		{Header: "Runtime Endpoint", Wide: true, Path: ".runtimeEndpoint", Help: "The CRI endpoint the PLEG relists.", Cell: figure(func(r plegRow) string { return orNone(r.Status.RuntimeEndpoint) })},
		{Header: "Runtime Events", Wide: true, Path: ".runtimeEvents", Help: "How the agent follows the runtime's container events to relist sooner: off, following, broken or unsupported.", Cell: figure(func(r plegRow) string { return orNone(r.Status.RuntimeEvents) })},
		{Header: "Event Relists", Wide: true, Path: ".eventRelists", Help: "The relists the runtime's container events brought forward.", Cell: figure(func(r plegRow) string { return itoa(r.Status.EventRelists) })},
		{Header: "Message", Wide: true, Help: "The PLEG's last error, or why it is off.", Cell: func(r plegRow) any {
			if r.Status.LastError != "" {
				return r.Status.LastError
			}
			return orNone(r.Status.Message)
		}},
	}
}
