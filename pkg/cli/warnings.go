package cli

import (
	"io"
	"sync"

	"k8s.io/client-go/rest"
)

// warningWriter is stderr for the warnings client-go writes (the API
// server's Warning headers): while a fan-out shows its progress line, they
// go through the line's guard, so that the line is cleared before each.
type warningWriter struct {
	w io.Writer

	mu sync.Mutex
	p  *progress
}

// Write implements io.Writer.
func (s *warningWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	return p.guard(s.w).Write(b)
}

// showing routes the writes through p's guard until the returned function
// is called.
func (s *warningWriter) showing(p *progress) (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.p = p
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.p = nil
	}
}

// warningHandler is the rest.Config's handler of the API server's
// warnings for every client of a command: each written once, as kubectl
// does, through w, without colour (stderr escapes control characters).
func warningHandler(w *warningWriter) func(*rest.Config) *rest.Config {
	h := rest.NewWarningWriter(w, rest.WarningWriterOptions{Deduplicate: true})
	return func(c *rest.Config) *rest.Config {
		c.WarningHandler = h
		return c
	}
}
