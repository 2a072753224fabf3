package why

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// maxEvents bounds the Events a stage quotes.
const maxEvents = 3

// podEvents describes the newest Events about the pod with one of the
// reasons (any reason when none is given), or says why the Events are not
// known.
func (a *analysis) podEvents(reasons ...string) []string {
	return describeEvents(a.f.PodEvents, reasons)
}

// noise are reasons of Events the kubelet records about every pod or the
// whole node, which say nothing about why one pod does not run.
var noise = []string{"MissingClusterDNS"}

// nodeWarnings describes the newest Warning Events about the node that
// name the subject's pod; none when the node's Events are not known.
func (a *analysis) nodeWarnings() []string {
	l := a.f.NodeEvents
	if !l.Known() || a.f.Subject.Name == "" {
		return nil
	}
	var picked []corev1.Event
	for _, e := range l.Value {
		if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, a.f.Subject.Name) {
			picked = append(picked, e)
		}
	}
	l.Value = picked
	return describeEvents(l, nil)
}

// describeEvents formats the newest events of l with one of the reasons.
func describeEvents(l Lookup[[]corev1.Event], reasons []string) []string {
	if !l.Known() {
		if l.Skipped != "" {
			return nil
		}
		return []string{"Events unknown: " + l.Why()}
	}
	var picked []corev1.Event
	for _, e := range l.Value {
		if (len(reasons) == 0 && !slices.Contains(noise, e.Reason)) || slices.Contains(reasons, e.Reason) {
			picked = append(picked, e)
		}
	}
	sort.SliceStable(picked, func(i, j int) bool { return eventTime(picked[i]).Before(eventTime(picked[j])) })
	if len(picked) > maxEvents {
		picked = picked[len(picked)-maxEvents:]
	}
	var out []string
	for _, e := range picked {
		s := fmt.Sprintf("Event %s: %s", e.Reason, e.Message)
		if e.Count > 1 {
			s += fmt.Sprintf(" (x%d)", e.Count)
		}
		if t := eventTime(e); !t.IsZero() {
			s += " at " + stamp(t)
		}
		out = append(out, s)
	}
	return out
}

// newestReason returns the reason of the newest of the Events with one of
// the reasons, empty when none.
func newestReason(l Lookup[[]corev1.Event], reasons []string) string {
	var best corev1.Event
	found := false
	for _, e := range l.Value {
		if slices.Contains(reasons, e.Reason) && (!found || !eventTime(e).Before(eventTime(best))) {
			best, found = e, true
		}
	}
	return best.Reason
}

// eventTime is when an Event last happened.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}
