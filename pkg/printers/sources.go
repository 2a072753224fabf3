package printers

import (
	"strings"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sources prints the pod sources of nodes: one row per node and source.
type Sources struct {
	Lists []v1alpha1.SourceList
	// Single says one node was asked for, so -o json prints its
	// SourceList rather than a List.
	Single bool
}

// Object implements Printable.
func (s Sources) Object() any { return listOrSingle(s.Lists, s.Single) }

// Tables implements Printable.
func (s Sources) Tables(now time.Time) []*Table {
	t := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Source", false), col("Target", false), col("Seen", false),
		col("Ready", false), col("Pods", false), col("Last Update", false), col("Errors", false),
		col("Updates", true), col("Mode", true), col("Last Error", true), col("Rejected Files", true),
		col("Shadowed Files", true),
	}}
	for _, l := range s.Lists {
		if len(l.Items) == 0 {
			t.Rows = append(t.Rows, Row{Cells: []any{l.NodeName, none, none, none, yesNo(l.AllSourcesSeen), "0", none, "0", "0", l.Mode, none, none, none}, Color: Yellow})
			continue
		}
		for _, src := range l.Items {
			// A rejected file's error is often also the source's last
			// error: count it once.
			errs := len(src.RejectedFiles)
			lastIsRejected := false
			var rejected []string
			for _, r := range src.RejectedFiles {
				lastIsRejected = lastIsRejected || strings.Contains(src.LastError, r.Error)
				if strings.Contains(r.Error, r.Path) {
					rejected = append(rejected, r.Error)
				} else {
					rejected = append(rejected, r.Path+": "+r.Error)
				}
			}
			if src.LastError != "" && !lastIsRejected {
				errs++
			}
			var shadowed []string
			for _, sh := range src.ShadowedFiles {
				shadowed = append(shadowed, sh.Path+" (by "+sh.By+")")
			}
			lastErr := none
			if src.LastError != "" {
				lastErr = src.LastError
				if src.LastErrorTime != nil {
					lastErr += " (" + ageOf(now, src.LastErrorTime) + " ago)"
				}
			}
			var c Color
			switch {
			case src.LastError != "":
				c = Red
			case errs > 0 || !src.Seen:
				c = Yellow
			}
			t.Rows = append(t.Rows, Row{Cells: []any{
				l.NodeName, src.Name, orNone(src.Target), yesNo(src.Seen), yesNo(l.AllSourcesSeen),
				itoa(src.Pods), ageOf(now, src.LastUpdate), itoa(errs),
				itoa(src.Updates), orNone(l.Mode), lastErr, joinOrNone(rejected, "; "), joinOrNone(shadowed, "; "),
			}, Color: c})
		}
	}
	return []*Table{t}
}
