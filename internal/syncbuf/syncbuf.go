// Package syncbuf has a byte buffer that goroutines write while others read
// it: a process's or a command's output, or a logger's, in tests.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer collects what is written to it from any goroutine and returns it
// all at any time. The zero value is an empty buffer ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
