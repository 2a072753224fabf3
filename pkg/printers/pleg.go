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
	sum := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Healthy", false), col("Last Relist", false), col("Relist P50", false),
		col("Relist P99", false), col("Relist Max", false), col("Interval", false), col("Failures", false),
		col("Events Dropped", false), col("Pods", false),
		col("Relists", true), col("Interval Max", true), col("Running Pods", true), col("Runtime Endpoint", true),
		col("Runtime Events", true), col("Event Relists", true), col("Message", true),
	}}
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
		health, c := yesNo(s.Healthy), NoColor
		switch {
		case !s.Enabled:
			health, c = "disabled", Faint
		case !s.Healthy:
			c = Red
		case s.ConsecutiveFailures > 0 || s.EventsDropped > 0:
			c = Yellow
		}
		msg := s.Message
		if s.LastError != "" {
			msg = s.LastError
		}
		failures := itoa(s.RelistFailures)
		if s.ConsecutiveFailures > 0 {
			failures += " (" + itoa(s.ConsecutiveFailures) + " in a row)"
		}
		cells := []any{
			s.NodeName, health, ageOf(now, s.LastRelist), Seconds(s.RelistDuration.P50),
			Seconds(s.RelistDuration.P99), Seconds(s.RelistDuration.Max), Seconds(s.RelistInterval.P50),
			failures, itoa(s.EventsDropped), itoa(s.Pods),
			itoa(s.Relists), Seconds(s.RelistInterval.Max), itoa(s.RunningPods), orNone(s.RuntimeEndpoint),
			orNone(s.RuntimeEvents), itoa(s.EventRelists), orNone(msg),
		}
		if !s.Enabled {
			// No relist, so no figure means anything; the message says
			// why it is off.
			for j := 2; j < len(cells)-1; j++ {
				cells[j] = ""
			}
		}
		sum.Rows = append(sum.Rows, Row{Cells: cells, Color: c, Item: &items[i]})
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
