package printers

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestWatchClock(t *testing.T) {
	zone := time.FixedZone("UTC+2", 2*3600)
	start := time.Date(2026, 11, 23, 23, 59, 0, 0, time.UTC) // 01:59 on the 24th in zone
	times := []time.Time{
		time.Date(2026, 11, 23, 23, 55, 30, 0, time.UTC),     // history, before the start
		time.Date(2026, 11, 23, 23, 59, 59, 999e6, time.UTC), // the last of the 23rd in UTC
		time.Date(2026, 11, 24, 0, 0, 0, 250e6, time.UTC),    // the day changes in UTC
		time.Date(2026, 11, 24, 0, 0, 1, 0, time.UTC),        // same day
		{}, // unknown
		time.Date(2026, 11, 25, 1, 2, 3, 4e6, time.UTC).Add(-time.Hour), // a day later
	}
	tests := []struct {
		format TimeFormat
		loc    *time.Location
		start  time.Time
		want   []string
	}{
		{TimeUTC, zone, start, []string{"23:55:30.000Z", "23:59:59.999Z", "2026-11-24 00:00:00.250Z", "00:00:01.000Z", "-", "2026-11-25 00:02:03.004Z"}},
		// In zone the watch started on the 24th: the first line, from the
		// 24th too, shows no date; the day changes on the last.
		{TimeLocal, zone, start, []string{"01:55:30.000", "01:59:59.999", "02:00:00.250", "02:00:01.000", "-", "2026-11-25 02:02:03.004"}},
		// A first line from another day than the start's shows its date.
		{TimeLocal, zone, start.Add(48 * time.Hour), []string{"2026-11-24 01:55:30.000", "01:59:59.999", "02:00:00.250", "02:00:01.000", "-", "2026-11-25 02:02:03.004"}},
		// Without a start, the first line shows no date.
		{TimeUTC, nil, time.Time{}, []string{"23:55:30.000Z", "23:59:59.999Z", "2026-11-24 00:00:00.250Z", "00:00:01.000Z", "-", "2026-11-25 00:02:03.004Z"}},
		{TimeRFC3339, zone, start, []string{"2026-11-24T01:55:30.000+02:00", "2026-11-24T01:59:59.999+02:00", "2026-11-24T02:00:00.250+02:00", "2026-11-24T02:00:01.000+02:00", "-", "2026-11-25T02:02:03.004+02:00"}},
		{TimeRelative, zone, start, []string{"-3m30.000s", "+59.999s", "+1m00.250s", "+1m01.000s", "-", "+24h3m03.004s"}},
		// Without a start, relative times count from the first line.
		{TimeRelative, nil, time.Time{}, []string{"+0.000s", "+4m29.999s", "+4m30.250s", "+4m31.000s", "-", "+24h6m33.004s"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			c := newWatchClock(tc.format, tc.loc, tc.start)
			for i, ts := range times {
				if got := c.cell(ts); got != tc.want[i] {
					t.Errorf("line %d: %q, want %q", i, got, tc.want[i])
				}
			}
		})
	}
}

func TestParseTimeFormat(t *testing.T) {
	for _, s := range append([]string{""}, TimeFormats...) {
		if _, err := ParseTimeFormat(s); err != nil {
			t.Errorf("ParseTimeFormat(%q): %v", s, err)
		}
	}
	if _, err := ParseTimeFormat("iso"); err == nil || !strings.Contains(err.Error(), "local, utc, rfc3339, relative") {
		t.Errorf("ParseTimeFormat(iso) = %v, want the formats listed", err)
	}
}

// TestWatchTableNodeColors: with several nodes each node's cell has its
// own colour, the row's own colour resumes after it, and widths count
// only the text.
func TestWatchTableNodeColors(t *testing.T) {
	var out bytes.Buffer
	tbl := &WatchTable{Out: &out, Color: true, NoHeaders: true, Display: WatchDisplay{Times: TimeUTC, NodeColors: true}}
	at := metav1.NewMicroTime(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	died := &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 1, Time: at, Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", PodName: "web", Namespace: "default"}}
	for _, node := range []string{"a", "b", "a"} {
		if err := tbl.PrintMessage(node, died); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), out.String())
	}
	a, b := paint(nodePalette[0], "a")+string(Red), paint(nodePalette[1], "b")+string(Red)
	for i, want := range []string{a, b, a} {
		if !strings.HasPrefix(lines[i], string(Red)+"10:00:00.000Z   "+want+strings.Repeat(" ", 15+3)+"pleg") {
			t.Errorf("line %d = %q, want the node's cell %q padded as text", i, lines[i], want)
		}
	}
	var plain bytes.Buffer
	tbl = &WatchTable{Out: &plain, Color: false, NoHeaders: true, Display: WatchDisplay{NodeColors: true}}
	if err := tbl.PrintMessage("a", died); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("uncoloured table has colours: %q", plain.String())
	}
}
