package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrentWrites writes lines from several goroutines while
// another reads, and finds every line once, whole.
func TestBufferConcurrentWrites(t *testing.T) {
	const writers, lines = 8, 100
	var b Buffer
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for range lines {
				if n, err := b.Write([]byte(strings.Repeat(string(rune('a'+w)), 10) + "\n")); n != 11 || err != nil {
					t.Errorf("Write = %d, %v; want 11, nil", n, err)
				}
			}
		})
	}
	wg.Go(func() {
		for range lines {
			_ = b.String()
		}
	})
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, l := range got {
		if len(l) != 10 || strings.Count(l, l[:1]) != 10 {
			t.Fatalf("line %q is torn", l)
		}
	}
}
