package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// WatchMessage is one message of a node's event stream as kubectl podsrc
// watch and events print it in the machine-readable formats: the stream
// message with its kind and the node it came from. Its Item (messageItem)
// names it.
type WatchMessage struct {
	metav1.TypeMeta `json:",inline"`
	NodeName        string `json:"nodeName"`
	v1alpha1.StreamMessage
}

// messageItem returns m, a message of node's stream, as an Item: an event
// named by its sequence number, in its pod's namespace (a PLEG event), and
// any other message by its type and the sequence numbers it refers to
// (gap-3-9, lagging-12).
func messageItem(node string, m *v1alpha1.StreamMessage) Item {
	w := WatchMessage{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindStreamMessage), NodeName: node, StreamMessage: *m}
	it := Item{Wire: w}
	switch {
	case m.Type == v1alpha1.MessageEvent && m.Event != nil:
		it.Name, it.Namespace = strconv.FormatUint(m.Event.Seq, 10), m.Event.Namespace
	case m.Type == v1alpha1.MessageGap:
		it.Name = fmt.Sprintf("%s-%d-%d", m.Type, m.From, m.To)
	default:
		it.Name = fmt.Sprintf("%s-%d", m.Type, m.Seq)
	}
	return it
}

// WatchPrinter prints stream messages as they arrive; it is safe for
// concurrent use by the streams of several nodes.
type WatchPrinter interface {
	PrintMessage(node string, m *v1alpha1.StreamMessage) error
}

// WatchDisplay is how the live table shows times and nodes.
type WatchDisplay struct {
	// Times is the format of the TIME column; TimeLocal when empty.
	Times TimeFormat
	// Location is the time zone of TimeLocal and TimeRFC3339 (local when
	// nil).
	Location *time.Location
	// Start is when the watch started, for TimeRelative and the date of
	// the first line; zero: relative times count from the first line, which
	// shows no date.
	Start time.Time
	// NodeColors gives each node its own colour in the NODE column, when
	// the table is coloured (several nodes are watched).
	NodeColors bool
}

// ToWatchPrinter returns the watch printer the flags ask for with the local
// time of day in loc (ToWatchPrinterFor).
func (f *PrintFlags) ToWatchPrinter(out io.Writer, loc *time.Location) (WatchPrinter, error) {
	return f.ToWatchPrinterFor(out, WatchDisplay{Location: loc})
}

// ToEventsPrinter returns the printer of kubectl podsrc events: the watch
// printer (ToWatchPrinterFor), but for -o json, yaml, jsonpath and
// go-template, which print the messages of all nodes as one List once they
// are all read (Flush), holding at most maxBytes of them (0: no bound).
func (f *PrintFlags) ToEventsPrinter(out io.Writer, d WatchDisplay, maxBytes int64) (WatchPrinter, error) {
	if f.IsHuman() || f.itemwise() {
		return f.ToWatchPrinterFor(out, d)
	}
	if _, err := f.ColorEnabled(out); err != nil {
		return nil, err
	}
	p, err := f.ToGenericPrinter()
	if err != nil {
		return nil, err
	}
	return &ListWatch{out: out, printer: &GenericPrinter{Delegate: p}, maxBytes: maxBytes}, nil
}

// ListWatch collects the messages of every node's stream, to print them as
// one List.
type ListWatch struct {
	mu       sync.Mutex
	out      io.Writer
	printer  *GenericPrinter
	items    []Item
	bytes    int64
	maxBytes int64
}

// PrintMessage implements WatchPrinter: it keeps m, and fails once the
// messages kept take more than the bound, counted as JSON.
func (l *ListWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += int64(len(b))
	if l.maxBytes > 0 && l.bytes > l.maxBytes {
		return fmt.Errorf("the events of all nodes, printed as one List, take more than the %d MiB of --max-bytes: narrow them (--since, --tail, --pod, --type), print them as they come (-o name or custom-columns, or the table), or raise --max-bytes", l.maxBytes>>20)
	}
	l.items = append(l.items, messageItem(node, m))
	return nil
}

// Flush prints the messages kept as one List, in the order they came.
func (l *ListWatch) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.printer.Print(itemList(l.items), l.out)
}

// itemList is a Printable of items with no table, for the machine-readable
// formats.
type itemList []Item

// Items implements Printable.
func (l itemList) Items() []Item { return l }

// Tables implements Printable: none.
func (itemList) Tables([]Item, time.Time) []*Table { return nil }

// ToWatchPrinterFor returns the watch printer the flags ask for: a live
// table shown as d says, one JSON message per line, YAML documents, or a
// template, a name or custom columns per message.
func (f *PrintFlags) ToWatchPrinterFor(out io.Writer, d WatchDisplay) (WatchPrinter, error) {
	o := f.format()
	color, err := f.ColorEnabled(out)
	if err != nil {
		return nil, err
	}
	if f.IsHuman() {
		return &WatchTable{Out: out, Wide: o == "wide", NoHeaders: *f.NoHeaders, Color: color, Display: d}, nil
	}
	// Made safe for a terminal as ToGenericPrinter's printers are.
	switch o {
	case "json":
		return &encodedWatch{out: NewEscapingWriter(out), encode: func(v any) ([]byte, error) {
			b, err := json.Marshal(v)
			return append(b, '\n'), err
		}}, nil
	case "yaml":
		return &encodedWatch{out: NewEscapingWriter(out), encode: func(v any) ([]byte, error) {
			b, err := MarshalYAML(v)
			return append([]byte("---\n"), b...), err
		}}, nil
	}
	p, err := f.ToGenericPrinter()
	if err != nil {
		return nil, err
	}
	return &genericWatch{out: out, p: p}, nil
}

// encodedWatch writes each message encoded whole.
type encodedWatch struct {
	mu     sync.Mutex
	out    io.Writer
	encode func(any) ([]byte, error)
}

// PrintMessage implements WatchPrinter.
func (e *encodedWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	obj, err := messageItem(node, m).Object()
	if err != nil {
		return err
	}
	b, err := e.encode(obj)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err = e.out.Write(b)
	return err
}

// genericWatch prints each message with a cli-runtime printer.
type genericWatch struct {
	mu  sync.Mutex
	out io.Writer
	p   printers.ResourcePrinter
}

// PrintMessage implements WatchPrinter.
func (g *genericWatch) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	obj, err := messageItem(node, m).metaObject()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.p.PrintObj(obj, g.out)
}

// watchColumns are the live table's columns: those marked wide only with
// -o wide, those marked narrow only without. KUBELET is the event's
// handler in one word, HANDLER the kubelet's own name of it. ORIGIN is a
// static pod's manifest or URL; without -o wide, DETAIL names it instead
// when it says nothing more important (there are two DETAIL columns, one
// of each width).
var watchColumns = []struct {
	name         string
	min          int
	wide, narrow bool
}{
	{"TIME", 12, false, false}, {"NODE", 16, false, false}, {"KIND", 6, false, false}, {"OP/EVENT", 16, false, false},
	{"SOURCE", 6, false, false}, {"NAMESPACE/NAME", 36, false, false}, {"CONTAINER", 10, false, false},
	{"KUBELET", 7, false, true}, {"SEQ", 5, true, false}, {"UID", 36, true, false}, {"HANDLER", 18, true, false},
	{"ORIGIN", 6, true, false}, {"DETAIL", 0, false, true}, {"DETAIL", 0, true, false},
}

// WatchTable prints stream messages as a live table like kubectl get -w:
// the header once, then a line per event as it arrives. Columns keep their
// width from line to line and widen when a value needs it.
type WatchTable struct {
	Out       io.Writer
	Wide      bool
	NoHeaders bool
	Color     bool
	Display   WatchDisplay

	mu      sync.Mutex
	widths  []int
	started bool
	clock   *watchClock
	nodes   nodeColors
}

// PrintMessage implements WatchPrinter.
func (t *WatchTable) PrintMessage(node string, m *v1alpha1.StreamMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		t.started = true
		t.clock = newWatchClock(t.Display.Times, t.Display.Location, t.Display.Start)
		t.nodes = nodeColors{}
		for _, c := range watchColumns {
			t.widths = append(t.widths, max(c.min, displayWidth(c.name)))
		}
		t.widths[timeColumn] = max(t.widths[timeColumn], t.clock.width())
		if !t.NoHeaders {
			var names []any
			for _, c := range watchColumns {
				names = append(names, c.name)
			}
			if err := t.line(Row{Cells: names}, NoColor); err != nil {
				return err
			}
		}
	}
	nodeColor := NoColor
	if t.Display.NodeColors {
		nodeColor = t.nodes.of(node)
	}
	for _, r := range WatchRows(node, m, t.clock.cell(messageTime(m))) {
		if err := t.line(r, nodeColor); err != nil {
			return err
		}
	}
	return nil
}

// line writes one padded row, its NODE cell in nodeColor.
func (t *WatchTable) line(r Row, nodeColor Color) error {
	var b strings.Builder
	last := len(watchColumns) - 1
	for i, c := range watchColumns {
		if c.wide && !t.Wide || c.narrow && t.Wide {
			continue
		}
		v := cellText(r.Cells[i])
		if i == last {
			b.WriteString(v)
			break
		}
		w := displayWidth(v)
		if w > t.widths[i] {
			t.widths[i] = w
		}
		pad := strings.Repeat(" ", t.widths[i]-w+3)
		if i == nodeColumn && t.Color && nodeColor != NoColor {
			// Back to the row's colour after the node's.
			v = paint(nodeColor, v) + string(r.Color)
		}
		b.WriteString(v)
		b.WriteString(pad)
	}
	line := strings.TrimRight(b.String(), " ")
	if t.Color {
		line = paint(r.Color, line)
	}
	_, err := fmt.Fprintln(t.Out, line)
	return err
}

// timeColumn and nodeColumn are the indexes of TIME and NODE in
// watchColumns.
const (
	timeColumn = 0
	nodeColumn = 1
)

// messageTime returns when what a stream message tells happened: its
// event's time, else the message's; zero when unknown.
func messageTime(m *v1alpha1.StreamMessage) time.Time {
	if m.Event != nil && !m.Event.Time.IsZero() {
		return m.Event.Time.Time
	}
	return m.Time.Time
}

// WatchRows returns the live table's rows for one message: a row per pod
// of a config event or snapshot, one for a PLEG event, a gap or a reset,
// with clock in the TIME column. Cells follow watchColumns.
func WatchRows(node string, m *v1alpha1.StreamMessage, clock string) []Row {
	handler := ""
	if m.Event != nil {
		handler = m.Event.Handler
	}
	// originRow's narrow is DETAIL without -o wide, wide DETAIL with it.
	originRow := func(kind, op, source, pod, container, seq, uid, origin, narrow, wide string, c Color) Row {
		return Row{Cells: []any{clock, node, kind, op, orDash(source), orDash(pod), orDash(container),
			orDash(v1alpha1.Verdict(handler)), seq, orDash(uid), orDash(handler), orDash(origin), narrow, wide}, Color: c}
	}
	row := func(kind, op, source, pod, container, seq, uid, detail string, c Color) Row {
		return originRow(kind, op, source, pod, container, seq, uid, "", detail, detail, c)
	}
	switch m.Type {
	case v1alpha1.MessageGap:
		return []Row{row("gap", "GAP", "", "", "", fmt.Sprintf("%d-%d", m.From, m.To), "",
			fmt.Sprintf("events %d-%d are lost: they left the agent's buffer before they were read", m.From, m.To), Red)}
	case v1alpha1.MessageReset:
		return []Row{row("reset", "RESET", "", "", "", "", "",
			"the agent restarted and numbers its events anew; events of the old agent not read yet are lost", Yellow)}
	case v1alpha1.MessageSnapshot:
		seq := itoa(m.Seq)
		if m.Snapshot == nil || len(m.Snapshot.Items) == 0 {
			return []Row{row("state", "SNAPSHOT", "", "", "", seq, "", "no pods", Faint)}
		}
		var rows []Row
		for _, p := range m.Snapshot.Items {
			detail := ""
			if p.Runtime != nil {
				detail = fmt.Sprintf("sandbox %s, %d/%d containers running", orNone(p.Runtime.SandboxState), running(p.Runtime.Containers), len(p.Runtime.Containers))
			}
			narrow := detail
			if narrow == "" && p.Origin != "" {
				narrow = "from " + p.Origin
			}
			rows = append(rows, originRow("state", "SNAPSHOT", p.Source, p.Namespace+"/"+p.Name, "", seq, string(p.UID), p.Origin, narrow, detail, Faint))
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
		return []Row{row(ev.Kind, "START", "", "", "", seq, "", boundaryDetail(ev.Boundary), Yellow)}
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
		return []Row{row("pleg", ev.Type, "", pod, container, seq, string(ev.PodUID), strings.Join(details, " "), c)}
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
		return []Row{row(ev.Kind, ev.Op, ev.Source, "", "", seq, "", strings.TrimSpace("no pods "+ignored), c)}
	}
	var rows []Row
	for i, p := range ev.Pods {
		details := []string{}
		if len(ev.Pods) > 1 {
			details = append(details, fmt.Sprintf("pod %d of %d", i+1, len(ev.Pods)))
		}
		pc := c
		// A static pod's origin is in ORIGIN with -o wide; without, DETAIL
		// names it unless it has a verdict or a reason to say.
		important := false
		if a := admissionDetail(p.Admission); a != "" {
			details, important = append(details, a), true
			if p.Admission.Rejected() {
				pc = Red
			}
		}
		if ignored != "" {
			details, important = append(details, ignored), true
		}
		wide, narrow := strings.Join(details, " "), strings.Join(details, " ")
		if !important && p.Origin != "" {
			narrow = strings.Join(append(details, "from "+p.Origin), " ")
		}
		rows = append(rows, originRow(ev.Kind, ev.Op, ev.Source, p.Namespace+"/"+p.Name, "", seq, string(p.UID), p.Origin, narrow, wide, pc))
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
