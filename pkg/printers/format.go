package printers

import (
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// none is what kubectl prints for an empty cell.
const none = "<none>"

// Age formats the time since t like kubectl's AGE column ("5s", "3m",
// "2d"); <unknown> for a zero time.
func Age(now time.Time, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// ageOf is Age of an optional time, "<never>" when unset.
func ageOf(now time.Time, t *metav1.Time) string {
	if t == nil || t.IsZero() {
		return "<never>"
	}
	return Age(now, t.Time)
}

// Seconds formats a latency in seconds compactly: 850µs, 12.3ms, 1.25s.
func Seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case s == 0:
		return "0"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// yesNo formats a boolean as kubectl does in columns like READY.
func yesNo(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// orNone returns s, or <none> when empty.
func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// joinOrNone joins ss with sep, <none> when empty.
func joinOrNone(ss []string, sep string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, sep)
}

// running counts the running containers of a pod.
func running(cs []v1alpha1.RuntimeContainer) int {
	n := 0
	for _, c := range cs {
		if strings.EqualFold(c.State, "running") {
			n++
		}
	}
	return n
}

// itoa formats an integer.
func itoa[T ~int | ~int64 | ~uint64](n T) string {
	return strconv.FormatInt(int64(n), 10)
}

// seenAge formats the kubelet's config.seen annotation as an age, or as is
// when it does not parse.
func seenAge(now time.Time, seen string) string {
	if seen == "" {
		return none
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, seen); err == nil {
			return Age(now, t)
		}
	}
	return seen
}

// briefWidth bounds a cell brief shortens, in characters.
const briefWidth = 80

// briefCut stands where brief left text out; briefMore ends a cell brief
// shortened: the full text is in -o yaml.
const (
	briefCut  = "…"
	briefMore = " (-o yaml for all)"
)

// brief returns s as one bounded cell: its first line, control characters
// escaped (EscapeControls), at most briefWidth characters; when that left
// something out, it ends with briefMore. A longer line is shortened from the
// middle: it keeps its head (what was being done) and its tail (the root
// cause, such as "connection refused").
func brief(s string) string {
	line, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	r := []rune(EscapeControls(strings.TrimSpace(line)))
	more = more && strings.TrimSpace(rest) != ""
	if len(r) > briefWidth {
		keep := briefWidth - len([]rune(briefCut))
		tail := briefTail(r, keep/2)
		r = append([]rune(strings.TrimRight(string(r[:keep-len(tail)]), " ")+briefCut), tail...)
		more = true
	}
	if !more {
		return string(r)
	}
	return string(r) + briefMore
}

// briefTail returns the end of r that brief keeps, at most width characters:
// the whole causes of a wrapped error ("…: dial tcp …: connection
// refused") or whole items of a list ("a; b") that fit, or, when even the
// last does not, its last characters.
func briefTail(r []rune, width int) []rune {
	tail := string(r[len(r)-width:])
	cut := -1
	for _, sep := range []string{": ", "; "} {
		if i := strings.Index(tail, sep); i >= 0 && (cut < 0 || i+len(sep) < cut) {
			cut = i + len(sep)
		}
	}
	if cut < 0 {
		return []rune(tail)
	}
	return []rune(tail[cut:])
}
