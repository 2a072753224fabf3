package cli

import (
	"context"
	"strings"
	"testing"
)

func TestWatchTimestampsFlag(t *testing.T) {
	_, _, err := run(t, context.Background(), "watch", "node-1", "--timestamps", "iso")
	if err == nil || !strings.Contains(err.Error(), "--timestamps \"iso\": want local, utc, rfc3339, relative") {
		t.Fatalf("error %v, want the formats listed", err)
	}
}
