package serve

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
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

// Slots counts the requests of one kind in progress, in total and per peer,
// and never waits: a request either gets a slot at once or is refused.
// One peer holds at most its share, so that a client that holds its slots
// for long (a slow reader, a stream never read) leaves the rest to others.
type Slots struct {
	total, perPeer int
	// words and label name the limit in 503 answers and metric labels.
	words, label string
	// refused counts the refused requests by label.
	refused *prometheus.CounterVec

	mu    sync.Mutex
	used  int
	peers map[netip.Prefix]int
}

func newSlots(total, perPeer int, words, label string, refused *prometheus.CounterVec) *Slots {
	return &Slots{total: total, perPeer: perPeer, words: words, label: label, refused: refused, peers: map[netip.Prefix]int{}}
}

// StreamSlots returns the slots of the event streams open at once, which
// counts the streams it refuses in refused (podsrc_refused_total).
func (l Limits) StreamSlots(refused *prometheus.CounterVec) *Slots {
	return newSlots(l.MaxStreams, l.MaxStreamsPerPeer, limitStreams, labelStreams, refused)
}

// SnapshotSlots returns the slots of the snapshot requests in progress at
// once, which counts the requests it refuses in refused
// (podsrc_refused_total).
func (l Limits) SnapshotSlots(refused *prometheus.CounterVec) *Slots {
	return newSlots(l.MaxSnapshots, l.MaxSnapshotsPerPeer, limitSnapshots, labelSnapshots, refused)
}

// take takes a slot for peer, or returns the limit it would exceed, in
// the words of a 503 answer and as a metric label: the total's, or the
// peer's share's (perPeerSuffix, perPeerLabel).
func (s *Slots) take(peer netip.Prefix) (words, label string) {
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
func (s *Slots) give(peer netip.Prefix) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	if s.peers[peer]--; s.peers[peer] <= 0 {
		delete(s.peers, peer)
	}
}

// Take takes a slot for the request's peer, or answers 503 with
// Retry-After and returns false.
func (s *Slots) Take(w http.ResponseWriter, r *http.Request) (give func(), ok bool) {
	peer := peerOf(r.RemoteAddr)
	if words, label := s.take(peer); words != "" {
		s.refused.WithLabelValues(label).Inc()
		writeUnavailable(w, words)
		return nil, false
	}
	return func() { s.give(peer) }, true
}

// Limit serves h only while the request holds one of s.
func (s *Slots) Limit(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		give, ok := s.Take(w, r)
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
	WriteError(w, http.StatusServiceUnavailable, "the podsrc agent is serving as many "+limit+" as it allows at once; retry later")
}
