package printers

import (
	"fmt"
	"strings"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// messageTime returns when what a stream message tells happened: its
// event's time, else the message's; zero when unknown.
func messageTime(m *v1alpha1.StreamMessage) time.Time {
	if m.Event != nil && !m.Event.Time.IsZero() {
		return m.Event.Time.Time
	}
	return m.Time.Time
}

// watchRow is one line of the live table: what a cell of WatchColumns
// reads.
type watchRow struct {
	Time, Node, Kind, Op, Source, Pod, Container string
	Seq, UID, Handler, Origin, Detail            string
	Color                                        Color
}

// WatchColumns are the live table's columns. KUBELET is the event's
// handler in one word, HANDLER the kubelet's own name of it. ORIGIN is a
// static pod's manifest or URL; without -o wide, DETAIL names it instead
// when it says nothing more important (watchRows).
func WatchColumns() Columns[watchRow] {
	return Columns[watchRow]{
		{Header: "Time", MinWidth: 12, Path: ".event.time", Help: "When the event happened, by the agent's clock, as --timestamps shows it (local time of day by default).", Cell: func(r watchRow) any { return r.Time }},
		{Header: "Node", MinWidth: 16, Path: ".nodeName", Help: "The node whose agent sent the event.", Cell: func(r watchRow) any { return r.Node }},
		{Header: "Kind", MinWidth: 6, Path: ".event.kind", Help: "config for a notification of the pod config merge, pleg for a PLEG event.", Cell: func(r watchRow) any { return r.Kind }},
		{Header: "Op/Event", MinWidth: 16, Help: "The notification's operation (ADD, UPDATE, DELETE, REMOVE, RECONCILE, SET) or the PLEG event's type; SNAPSHOT, GAP, RESET or START for a line of the stream itself.", Cell: func(r watchRow) any { return r.Op }},
		{Header: "Source", MinWidth: 6, Path: ".event.source", Help: "The source the notification came from (file, http, api); - for a PLEG event.", Cell: func(r watchRow) any { return orDash(r.Source) }},
		{Header: "Namespace/Name", MinWidth: 36, Help: "The pod the row is about.", Cell: func(r watchRow) any { return orDash(r.Pod) }},
		{Header: "Container", MinWidth: 10, Path: ".event.containerName", Help: "The container a PLEG event is about; - for none.", Cell: func(r watchRow) any { return orDash(r.Container) }},
		{Header: "Kubelet", MinWidth: 7, Help: "What the kubelet's sync loop does with the event, in one word: add, update, remove, reconcile, sync or ignored.", Cell: func(r watchRow) any { return orDash(v1alpha1.SyncHandlerWord(r.Handler)) }},
		{Header: "Seq", MinWidth: 5, Wide: true, Path: ".event.seq", Help: "The event's sequence number on its agent.", Cell: func(r watchRow) any { return r.Seq }},
		{Header: "UID", MinWidth: 36, Wide: true, Help: "The pod's UID.", Cell: func(r watchRow) any { return orDash(r.UID) }},
		{Header: "Handler", MinWidth: 18, Wide: true, Path: ".event.handler", Help: "The kubelet's sync loop handler the event goes to (HandlePodAdditions, ...), or ignored.", Cell: func(r watchRow) any { return orDash(r.Handler) }},
		{Header: "Origin", MinWidth: 6, Wide: true, Help: "A static pod's manifest path or static pod URL.", Cell: func(r watchRow) any { return orDash(r.Origin) }},
		{Header: "Detail", Help: "What else the event says: the admission's verdict, why it is ignored, an exit code, warnings; without -o wide, a static pod's origin.", Cell: func(r watchRow) any { return r.Detail }},
	}
}

// watchRows returns the live table's rows for one message: a row per pod
// of a config event or snapshot, one for a PLEG event, a gap or a reset,
// with clock in the TIME column. wide says ORIGIN is shown: else DETAIL
// names a static pod's origin when it says nothing more important.
func watchRows(node string, m *v1alpha1.StreamMessage, clock string, wide bool) []watchRow {
	handler := ""
	if m.Event != nil {
		handler = m.Event.Handler
	}
	row := func(kind, op, source, pod, container, seq, uid, detail string, c Color) watchRow {
		return watchRow{Time: clock, Node: node, Kind: kind, Op: op, Source: source, Pod: pod, Container: container,
			Seq: seq, UID: uid, Handler: handler, Detail: detail, Color: c}
	}
	// originRow is row with the origin of a static pod, which DETAIL
	// names without -o wide when it says nothing more important.
	originRow := func(kind, op, source, pod, seq, uid, origin, detail string, important bool, c Color) watchRow {
		r := row(kind, op, source, pod, "", seq, uid, detail, c)
		r.Origin = origin
		if !wide && !important && origin != "" {
			r.Detail = strings.TrimSpace(detail + " from " + origin)
		}
		return r
	}
	switch m.Type {
	case v1alpha1.MessageGap:
		return []watchRow{row("gap", "GAP", "", "", "", fmt.Sprintf("%d-%d", m.From, m.To), "",
			fmt.Sprintf("events %d-%d are lost: the agent no longer has them (its buffer or journal dropped them, or it stopped before writing them)", m.From, m.To), Red)}
	case v1alpha1.MessageReset:
		return []watchRow{row("reset", "RESET", "", "", "", "", "",
			"the agent restarted and numbers its events anew; events of the old agent not read yet are lost", Yellow)}
	case v1alpha1.MessageSnapshot:
		seq := itoa(m.Seq)
		if m.Snapshot == nil || len(m.Snapshot.Items) == 0 {
			return []watchRow{row("state", "SNAPSHOT", "", "", "", seq, "", "no pods", Faint)}
		}
		var rows []watchRow
		for _, p := range m.Snapshot.Items {
			detail := ""
			if p.Runtime != nil {
				detail = fmt.Sprintf("sandbox %s, %d/%d containers running", orNone(p.Runtime.SandboxState), running(p.Runtime.Containers), len(p.Runtime.Containers))
			}
			rows = append(rows, originRow("state", "SNAPSHOT", p.Source, p.Namespace+"/"+p.Name, seq, string(p.UID), p.Origin, detail, detail != "", Faint))
		}
		return rows
	case v1alpha1.MessageEvent:
	default:
		return nil
	}
	ev := m.Event
	if ev == nil {
		return nil
	}
	seq := itoa(ev.Seq)
	if ev.Kind == v1alpha1.EventKindBoundary {
		return []watchRow{row(ev.Kind, "START", "", "", "", seq, "", boundaryDetail(ev.Boundary), Yellow)}
	}
	if in := ev.Input; ev.Kind == v1alpha1.EventKindInput && in != nil {
		switch {
		case in.Settings != nil:
			judged := "no admission judged"
			if in.Settings.Admission != nil {
				judged = "admission judged"
			}
			return []watchRow{row(ev.Kind, "SETTINGS", "", "", "", seq, "", fmt.Sprintf("sources %s, mode %s, %s",
				strings.Join(in.Settings.Sources, ","), in.Settings.Mode, judged), Faint)}
		case in.Node != nil:
			return []watchRow{row(ev.Kind, "NODE", "", in.Node.Name, "", seq, string(in.Node.UID), "the Node the admit handlers are given", Faint)}
		case in.NodeGone:
			return []watchRow{row(ev.Kind, "NODE", "", "", "", seq, "", "the Node was deleted", Faint)}
		case in.Relist != nil:
			return []watchRow{row(ev.Kind, "RELIST", "", "", "", seq, "", fmt.Sprintf("the runtime listed %d sandboxes and %d containers",
				len(in.Relist.Sandboxes), len(in.Relist.Containers)), Faint)}
		case in.Inspection != nil:
			what, id := "container", in.Inspection.ContainerID
			if in.Inspection.SandboxID != "" {
				what, id = "sandbox", in.Inspection.SandboxID
			}
			detail := "inspected " + what + " " + shortID(id)
			if in.Inspection.Error != "" {
				detail += ": " + in.Inspection.Error
			}
			return []watchRow{row(ev.Kind, "INSPECT", "", "", "", seq, "", detail, Faint)}
		case in.Update != nil && len(in.Update.Pods) == 0:
			return []watchRow{row(ev.Kind, in.Update.Op, in.Update.Source, "", "", seq, "", "no pods", Faint)}
		case in.Update != nil:
			var rows []watchRow
			for i, p := range in.Update.Pods {
				if p == nil {
					continue
				}
				detail := ""
				if len(in.Update.Pods) > 1 {
					detail = fmt.Sprintf("pod %d of %d", i+1, len(in.Update.Pods))
				}
				rows = append(rows, row(ev.Kind, in.Update.Op, in.Update.Source, p.Namespace+"/"+p.Name, "", seq, string(p.UID), detail, Faint))
			}
			return rows
		}
		return nil
	}
	if ev.Kind == v1alpha1.EventKindPLEG {
		container := ev.ContainerName
		if ev.Sandbox {
			container = "<sandbox>"
		}
		var details []string
		if ev.Data != "" {
			details = append(details, "id="+shortID(ev.Data))
		}
		if ev.ExitCode != nil {
			details = append(details, fmt.Sprintf("exit=%d", *ev.ExitCode))
		}
		switch {
		case ev.KubeletSends != nil && !*ev.KubeletSends:
			details = append(details, "(the kubelet does not send this event)")
		case ev.Ignored != "":
			details = append(details, "(ignored: "+ev.Ignored+")")
		}
		details = append(details, removals(ev)...)
		var c Color
		switch ev.Type {
		case v1alpha1.PLEGContainerStarted:
			c = Green
		case v1alpha1.PLEGContainerDied:
			c = Red
		}
		if ev.KubeletSends != nil && !*ev.KubeletSends {
			c = Faint
		}
		pod := ev.PodName
		if ev.Namespace != "" {
			pod = ev.Namespace + "/" + ev.PodName
		}
		return []watchRow{row("pleg", ev.Type, "", pod, container, seq, string(ev.PodUID), strings.Join(details, " "), c)}
	}
	var c Color
	switch ev.Op {
	case v1alpha1.OpAdd:
		c = Green
	case v1alpha1.OpDelete, v1alpha1.OpRemove:
		c = Red
	}
	ignored := ""
	if ev.Ignored != "" {
		ignored = "(ignored: " + ev.Ignored + ")"
	}
	if len(ev.Pods) == 0 {
		return []watchRow{row(ev.Kind, ev.Op, ev.Source, "", "", seq, "", strings.TrimSpace("no pods "+ignored), c)}
	}
	var rows []watchRow
	for i, p := range ev.Pods {
		details := []string{}
		if len(ev.Pods) > 1 {
			details = append(details, fmt.Sprintf("pod %d of %d", i+1, len(ev.Pods)))
		}
		pc := c
		important := false
		if a := admissionDetail(p.Admission); a != "" {
			details, important = append(details, a), true
			if p.Admission.Rejected() {
				pc = Red
			}
		}
		for _, w := range p.Warnings {
			details, important = append(details, "warning: "+w), true
			if pc != Red {
				pc = Yellow
			}
		}
		if ignored != "" {
			details, important = append(details, ignored), true
		}
		rows = append(rows, originRow(ev.Kind, ev.Op, ev.Source, p.Namespace+"/"+p.Name, seq, string(p.UID), p.Origin, strings.Join(details, " "), important, pc))
	}
	return rows
}

// admissionDetail describes the kubelet's admission verdict on an added
// pod: nothing when it was admitted, "rejected: <Reason>: <message>" and
// the pods it preempts, or why it was skipped or cannot be judged.
func admissionDetail(a *v1alpha1.Admission) string {
	switch {
	case a == nil:
		return ""
	case a.Unknown != "":
		return "admission unknown: " + a.Unknown
	case a.Skipped != "":
		return ""
	}
	var parts []string
	if !a.Admitted {
		parts = append(parts, "rejected: "+a.Reason+": "+a.Message)
	}
	if len(a.Preempts) > 0 {
		victims := make([]string, len(a.Preempts))
		for i, v := range a.Preempts {
			victims[i] = v.Namespace + "/" + v.Name
		}
		parts = append(parts, "preempts "+strings.Join(victims, ","))
	}
	return strings.Join(parts, "; ")
}

// removals describes the containers the kubelet removes after a
// ContainerDied: "removes=" and their short IDs, or unknown.
func removals(ev *v1alpha1.Event) []string {
	switch {
	case ev.RemovesUnknown != "":
		return []string{"removes=unknown"}
	case len(ev.Removes) > 0:
		ids := make([]string, len(ev.Removes))
		for i, id := range ev.Removes {
			ids[i] = shortID(id)
		}
		return []string{"removes=" + strings.Join(ids, ",")}
	}
	return nil
}

// orDash returns s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shortID shortens a container ID like the runtime tools do.
func shortID(id string) string {
	if i := strings.Index(id, "://"); i >= 0 {
		id = id[i+3:]
	}
	if len(id) > 13 {
		return id[:13]
	}
	return id
}
