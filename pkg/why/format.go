package why

import "time"

// stamp formats a time for a report: UTC, to the second.
func stamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
