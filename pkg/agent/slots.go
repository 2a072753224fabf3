package agent

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"
)

// retryAfterSeconds is the Retry-After of a 503 for a limit.
const retryAfterSeconds = 1

// What the request limits count, as 503 answers and metrics name them.
const (
	limitStreams   = "event streams"
	limitSnapshots = "snapshot requests"
)

// perPeerSuffix marks the per-peer share of a limit in its 503 answers and
// metric labels.
const perPeerSuffix = " from one address"

// slots counts the requests of one kind in progress, in total and per peer,
// and never waits: a request either gets a slot at once or is refused.
// One peer holds at most its share, so that a client that holds its slots
// for long (a slow reader, a stream never read) leaves the rest to others.
type slots struct {
	total, perPeer int

	mu    sync.Mutex
	used  int
	peers map[netip.Prefix]int
}

func newSlots(total, perPeer int) *slots {
	return &slots{total: total, perPeer: perPeer, peers: map[netip.Prefix]int{}}
}

// take takes a slot for peer, or returns the limit it would exceed: what
// for the total, what+perPeerSuffix for the peer's share.
func (s *slots) take(peer netip.Prefix, what string) (refused string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.peers[peer] >= s.perPeer:
		return what + perPeerSuffix
	case s.used >= s.total:
		return what
	}
	s.used++
	s.peers[peer]++
	return ""
}

// give returns a slot peer took.
func (s *slots) give(peer netip.Prefix) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	if s.peers[peer]--; s.peers[peer] <= 0 {
		delete(s.peers, peer)
	}
}

// takeSlot takes a slot of s for the request's peer, or answers 503 with
// Retry-After and returns false. what names the limit in the answer.
func (a *Agent) takeSlot(w http.ResponseWriter, r *http.Request, s *slots, what string) (give func(), ok bool) {
	peer := peerOf(r.RemoteAddr)
	if limit := s.take(peer, what); limit != "" {
		a.metrics.refused.WithLabelValues(limit).Inc()
		writeUnavailable(w, limit)
		return nil, false
	}
	return func() { s.give(peer) }, true
}

// limited serves h only while the request holds one of s.
func (a *Agent) limited(s *slots, what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		give, ok := a.takeSlot(w, r, s, what)
		if !ok {
			return
		}
		defer give()
		h(w, r)
	}
}

// writeUnavailable answers a request beyond a limit.
func writeUnavailable(w http.ResponseWriter, limit string) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	writeError(w, http.StatusServiceUnavailable, "the podsrc agent is serving as many "+limit+" as it allows at once; retry later")
}
