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
			src.NodeName, src.AllSourcesSeen = l.NodeName, l.AllSourcesSeen
			out = append(out, Item{Wire: src, Name: src.Name})
		}
	}
	return out
}

// Tables implements Printable. -o wide shows errors shortened to one line
// (brief).
func (s Sources) Tables(items []Item, now time.Time) []*Table {
	t := &Table{Columns: []metav1.TableColumnDefinition{
		col("Node", false), col("Source", false), col("Target", false), col("Seen", false),
		col("Ready", false), col("Pods", false), col("Last Update", false), col("Errors", false),
		col("Updates", true), col("Mode", true), col("Last Error", true), col("Rejected Files", true),
		col("Shadowed Files", true),
	}}
	mode := map[string]string{}
	for _, l := range s.Lists {
		mode[l.NodeName] = l.Mode
	}
	for i := range items {
		src := items[i].Wire.(v1alpha1.Source)
		if src.Name == "" {
			t.Rows = append(t.Rows, Row{Cells: []any{src.NodeName, none, none, none, yesNo(src.AllSourcesSeen), "0", none, "0", "0", orNone(mode[src.NodeName]), none, none, none}, Color: Yellow, Item: &items[i]})
			continue
		}
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
			lastErr = brief(src.LastError)
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
			src.NodeName, src.Name, orNone(src.Target), yesNo(src.Seen), yesNo(src.AllSourcesSeen),
			itoa(src.Pods), ageOf(now, src.LastUpdate), itoa(errs),
			itoa(src.Updates), orNone(mode[src.NodeName]), lastErr, brief(joinOrNone(rejected, "; ")), brief(joinOrNone(shadowed, "; ")),
		}, Color: c, Item: &items[i]})
	}
	return []*Table{t}
}
