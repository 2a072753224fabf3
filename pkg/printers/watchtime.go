package printers

import (
	"fmt"
	"strings"
	"time"
)

// TimeFormat is how the live watch table shows when an event happened
// (--timestamps).
type TimeFormat string

// Time formats.
const (
	// TimeLocal is the local time of day, 15:04:05.000.
	TimeLocal TimeFormat = "local"
	// TimeUTC is the time of day in UTC, 15:04:05.000Z.
	TimeUTC TimeFormat = "utc"
	// TimeRFC3339 is the date and time with its zone offset,
	// 2006-01-02T15:04:05.000-07:00.
	TimeRFC3339 TimeFormat = "rfc3339"
	// TimeRelative is the time since the watch started: +1.250s, or
	// -4m12.000s for an event from before it (--since).
	TimeRelative TimeFormat = "relative"
)

// TimeFormats are the values of --timestamps.
var TimeFormats = []string{string(TimeLocal), string(TimeUTC), string(TimeRFC3339), string(TimeRelative)}

// ParseTimeFormat checks a --timestamps value; empty is TimeLocal.
func ParseTimeFormat(s string) (TimeFormat, error) {
	switch f := TimeFormat(s); f {
	case "":
		return TimeLocal, nil
	case TimeLocal, TimeUTC, TimeRFC3339, TimeRelative:
		return f, nil
	}
	return "", fmt.Errorf("--timestamps %q: want %s", s, strings.Join(TimeFormats, ", "))
}

// dateLayout is how the date is shown before a time of day.
const dateLayout = "2006-01-02"

// watchClock formats the TIME cell of the live table's lines, in order.
// The times of day (local, utc) carry the date on a line whose day is not
// the previous line's, and on the first line when it is not from the day
// the watch started.
type watchClock struct {
	format TimeFormat
	loc    *time.Location
	start  time.Time
	// day is the date of the previous line; empty before the first line
	// of a watch whose start is unknown.
	day string
}

// newWatchClock returns the clock of a watch that started at start (zero:
// unknown, and relative times count from the first line).
func newWatchClock(format TimeFormat, loc *time.Location, start time.Time) *watchClock {
	if format == TimeUTC {
		loc = time.UTC
	}
	if loc == nil {
		loc = time.Local
	}
	c := &watchClock{format: format, loc: loc, start: start}
	if !start.IsZero() {
		c.day = start.In(loc).Format(dateLayout)
	}
	return c
}

// cell returns the text of the time ts, "-" when it is unknown.
func (c *watchClock) cell(ts time.Time) string {
	if ts.IsZero() {
		return "-"
	}
	switch c.format {
	case TimeRFC3339:
		return ts.In(c.loc).Format("2006-01-02T15:04:05.000Z07:00")
	case TimeRelative:
		if c.start.IsZero() {
			c.start = ts
		}
		return relativeTime(ts.Sub(c.start))
	}
	t := ts.In(c.loc)
	text := t.Format("15:04:05.000")
	if c.format == TimeUTC {
		text += "Z"
	}
	day := t.Format(dateLayout)
	if c.day != "" && day != c.day {
		text = day + " " + text
	}
	c.day = day
	return text
}

// width returns the width of a TIME cell that shows no date, where the
// live table's TIME column starts, so that its header stays above it.
func (c *watchClock) width() int {
	switch c.format {
	case TimeRFC3339:
		return len("2006-01-02T15:04:05.000-07:00")
	case TimeUTC:
		return len("15:04:05.000Z")
	}
	return len("15:04:05.000")
}

// relativeTime shows d with a sign and millisecond precision: +1.250s,
// -4m12.000s, +26h3m4.000s.
func relativeTime(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	d = d.Round(time.Millisecond)
	seconds := fmt.Sprintf("%06.3fs", (d % time.Minute).Seconds())
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%s%.3fs", sign, d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%s%dm%s", sign, int(d/time.Minute), seconds)
	}
	return fmt.Sprintf("%s%dh%dm%s", sign, int(d/time.Hour), int(d%time.Hour/time.Minute), seconds)
}
