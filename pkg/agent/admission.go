package agent

import (
	"net/http"
	"strconv"
)

// retryAfterSeconds is the Retry-After of a 503 for a limit.
const retryAfterSeconds = 1

// What the request limits count, as 503 answers and metrics name them.
const (
	limitStreams   = "event streams"
	limitSnapshots = "snapshot requests"
)

// slots is a counting semaphore that never waits: a request either gets a
// slot at once or is refused.
type slots chan struct{}

func newSlots(n int) slots { return make(slots, n) }

// take returns whether a slot was free, and took it.
func (s slots) take() bool {
	select {
	case s <- struct{}{}:
		return true
	default:
		return false
	}
}

// give returns a slot taken.
func (s slots) give() { <-s }

// limited serves h only while it holds one of s, and answers 503 with
// Retry-After when none is free. what names the limit in the answer.
func (a *Agent) limited(s slots, what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.take() {
			a.metrics.refused.WithLabelValues(what).Inc()
			writeUnavailable(w, what)
			return
		}
		defer s.give()
		h(w, r)
	}
}

// writeUnavailable answers a request beyond a limit.
func writeUnavailable(w http.ResponseWriter, what string) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	writeError(w, http.StatusServiceUnavailable, "the podsrc agent is serving as many "+what+" as it allows at once; retry later")
}
