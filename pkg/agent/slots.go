package agent

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"
)

// retryAfterSeconds is the Retry-After of a 503 for a limit.
const retryAfterSeconds = 1

// What the request limits count, as their 503 answers say it, and as
// their metric labels (podsrc_refused_total's limit) name them: as their
// flags do (--max-streams, --max-snapshot-requests), the style of the
// connection limits' labels.
const (
	limitStreams   = "event streams"
	limitSnapshots = "snapshot requests"
	labelStreams   = "streams"
	labelSnapshots = "snapshot-requests"
)

// perPeerSuffix marks the per-peer share of a limit in its 503 answers,
// perPeerLabel in its metric label (as its flag, --max-…-per-peer).
const (
	perPeerSuffix = " from one address"
	perPeerLabel  = "-per-peer"
)

// slots counts the requests of one kind in progress, in total and per peer,
// and never waits: a request either gets a slot at once or is refused.
// One peer holds at most its share, so that a client that holds its slots
// for long (a slow reader, a stream never read) leaves the rest to others.
type slots struct {
	total, perPeer int
	// words and label name the limit in 503 answers and metric labels.
	words, label string

	mu    sync.Mutex
	used  int
	peers map[netip.Prefix]int
}

func newSlots(total, perPeer int, words, label string) *slots {
	return &slots{total: total, perPeer: perPeer, words: words, label: label, peers: map[netip.Prefix]int{}}
}

// take takes a slot for peer, or returns the limit it would exceed, in
// the words of a 503 answer and as a metric label: the total's, or the
// peer's share's (perPeerSuffix, perPeerLabel).
func (s *slots) take(peer netip.Prefix) (words, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.peers[peer] >= s.perPeer:
		return s.words + perPeerSuffix, s.label + perPeerLabel
	case s.used >= s.total:
		return s.words, s.label
	}
	s.used++
	s.peers[peer]++
	return "", ""
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
// Retry-After and returns false.
func (a *Agent) takeSlot(w http.ResponseWriter, r *http.Request, s *slots) (give func(), ok bool) {
	peer := peerOf(r.RemoteAddr)
	if words, label := s.take(peer); words != "" {
		a.metrics.refused.WithLabelValues(label).Inc()
		writeUnavailable(w, words)
		return nil, false
	}
	return func() { s.give(peer) }, true
}

// limited serves h only while the request holds one of s.
func (a *Agent) limited(s *slots, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		give, ok := a.takeSlot(w, r, s)
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
