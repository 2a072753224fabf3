package printers

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// PodDetail is what kubectl podsrc pod shows of one pod: the pod as its
// node's agent serves it (PodInfo with nodeName set), the state of the
// source it came from, and the events the agent still holds for it. Its
// Item is named after the pod.
type PodDetail struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string           `json:"nodeName"`
	Pod             v1alpha1.PodInfo `json:"pod"`
	// Source is the state of the pod's source; nil for a pod only the
	// runtime has.
	Source *v1alpha1.Source `json:"source,omitempty"`
	// Events are the notifications that named the pod and its PLEG
	// events, oldest first, as far back as the agent's buffer goes.
	Events []v1alpha1.Event `json:"events"`
	// EventsMissed says the agent had already evicted older events.
	EventsMissed bool `json:"eventsMissed,omitempty"`
	// Others are the other pods of the node with the pod's namespace and
	// name (a static pod's mirror pod), when it was asked for by name.
	Others []v1alpha1.PodInfo `json:"others,omitempty"`
}

// Items implements Printable: the detail, named as its pod.
func (d PodDetail) Items() []Item {
	d.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPodDetail)
	d.NodeName = d.Pod.NodeName
	return []Item{{Wire: d, Name: d.Pod.Name, Namespace: d.Pod.Namespace, UID: string(d.Pod.UID), Labels: d.Pod.Labels, Node: d.Pod.NodeName}}
}

// Tables implements Printable: none, for people the detail is written by
// PrintPodDetail.
func (d PodDetail) Tables([]Item, time.Time) []*Table { return nil }

// PrintPodDetail writes d for people, as kubectl describe does: fields,
// then the containers and the events as tables. Every value is escaped.
func PrintPodDetail(w io.Writer, d PodDetail, now time.Time) error {
	p := d.Pod
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	field := func(indent int, name string, value any) {
		fmt.Fprintf(tw, "%s%s:\t%s\n", strings.Repeat("  ", indent), name, cellText(value))
	}
	heading := func(name string) { fmt.Fprintf(tw, "%s:\n", name) }
	field(0, "Node", p.NodeName)
	field(0, "Namespace", p.Namespace)
	field(0, "Name", p.Name)
	field(0, "UID", p.UID)
	field(0, "Labels", orNone(labels.FormatLabels(p.Labels)))
	kind := "-"
	switch {
	case p.Static:
		kind = "static, config hash " + p.ConfigHash
	case p.Mirror:
		kind = "mirror of the static pod with config hash " + p.ConfigMirror
	}
	field(0, "Kind", kind)
	field(0, "First Seen", seenAge(now, p.FirstSeen))
	field(0, "Status", statusLine(p))
	// The admission as the agent holds it now (/pods), which outlives the
	// events in its buffer.
	if a := p.Admission; a != nil {
		field(0, "Admission", admissionWord(a))
		msg := a.Message
		switch {
		case a.Unknown != "":
			msg = a.Unknown
		case a.Skipped != "":
			msg = a.Skipped
		}
		if a.Reason != "" {
			field(1, "Reason", a.Reason)
		}
		if msg != "" {
			field(1, "Message", msg)
		}
	}
	if s := d.Source; s != nil {
		field(0, "Source", s.Name)
		if p.Origin != "" {
			field(1, "Origin", p.Origin)
		}
		field(1, "Target", orNone(s.Target))
		field(1, "Seen", yesNo(s.Seen))
		field(1, "Last Update", ageOf(now, s.LastUpdate))
		field(1, "Last Error", orNone(s.LastError))
	} else {
		field(0, "Source", "<runtime> (no source configures this pod)")
	}
	if rt := p.Runtime; rt != nil {
		heading("Runtime")
		field(1, "Sandbox", orNone(rt.SandboxState)+" "+orNone(rt.SandboxID))
		field(1, "IPs", joinOrNone(rt.IPs, ","))
		if rt.Error != "" {
			field(1, "Error", rt.Error)
		}
	} else {
		field(0, "Runtime", "<none> (the runtime has nothing of this pod)")
	}
	for _, o := range d.Others {
		field(0, "Same Name", string(o.UID)+" ("+orNone(o.Source)+")")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.Runtime != nil && len(p.Runtime.Containers) > 0 {
		fmt.Fprintln(w, "Containers:")
		ct := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
		fmt.Fprintln(ct, "  NAME\tSTATE\tRESTARTS\tEXIT CODE\tREASON\tSTARTED\tIMAGE\tID")
		for _, c := range p.Runtime.Containers {
			cells := []any{c.Name, c.State, itoa(c.RestartCount), itoa(c.ExitCode), orNone(c.Reason), ageOf(now, c.StartedAt), orNone(c.Image), shortID(c.ID)}
			texts := make([]string, len(cells))
			for i, v := range cells {
				texts[i] = cellText(v)
			}
			fmt.Fprintln(ct, "  "+strings.Join(texts, "\t"))
		}
		if err := ct.Flush(); err != nil {
			return err
		}
	}
	switch {
	case len(d.Events) == 0 && d.EventsMissed:
		fmt.Fprintln(w, "Events: <none> that the agent still holds")
	case len(d.Events) == 0:
		fmt.Fprintln(w, "Events: <none>")
	default:
		if d.EventsMissed {
			fmt.Fprintln(w, "Events (older ones were evicted from the agent's buffer):")
		} else {
			fmt.Fprintln(w, "Events:")
		}
		wt := &WatchTable{Out: w}
		for i := range d.Events {
			if err := wt.PrintMessage(p.NodeName, &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &d.Events[i]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// statusLine says what the pods table says first about a pod: its STATUS,
// how many of its containers are ready, and its last exit.
func statusLine(p v1alpha1.PodInfo) string {
	if p.Mirror {
		return statusMirror + " (a mirror pod: its static pod runs the containers)"
	}
	st := statusOf(p)
	line := fmt.Sprintf("%s, %d/%d containers ready", st.Status, st.Ready, st.Configured)
	if st.LastExit != none {
		line += ", last exit " + st.LastExit
	}
	return line
}

// admissionWord says in a word what the kubelet's admission made of a pod.
func admissionWord(a *v1alpha1.Admission) string {
	switch {
	case a.Unknown != "":
		return "unknown"
	case a.Skipped != "":
		return "skipped"
	case a.Admitted:
		return "admitted"
	}
	return "rejected"
}
