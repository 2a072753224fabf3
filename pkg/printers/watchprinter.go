package printers

import (
	"encoding/json"
	"io"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

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
// are all read (Flush), holding them within budget (nil: no bound).
func (f *PrintFlags) ToEventsPrinter(out io.Writer, d WatchDisplay, budget Budget) (WatchPrinter, error) {
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
	return &ListWatch{out: out, printer: &GenericPrinter{Delegate: p}, budget: budget}, nil
}

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
	return &genericWatch{out: out, p: p, names: o == "name"}, nil
}
