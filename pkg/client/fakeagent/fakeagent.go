// Package fakeagent serves the podsrc agent's HTTP API from canned state, for
// tests of the client and the kubectl plugin. Its event stream keeps a
// bounded buffer like the agent's, honors its query (v1alpha1.EventQuery),
// sends heartbeats, and can be told to drop a connection mid-stream.
package fakeagent

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Agent is a fake podsrc agent. Set its exported state before serving, or
// under Lock.
type Agent struct {
	mu sync.Mutex

	// Sources, Pods, PLEG and Version are served as they are.
	Sources v1alpha1.SourceList
	Pods    v1alpha1.PodList
	PLEG    v1alpha1.PLEGStatus
	Version v1alpha1.Version
	// Served is the API version the agent serves under /api; when it is not
	// v1alpha1, /api/v1alpha1 answers 404.
	Served string
	// Capacity bounds the event buffer; older events are evicted.
	Capacity int
	// Heartbeat is the interval of heartbeats.
	Heartbeat time.Duration
	// Fault, when set, makes every answer but /healthz, /livez and
	// /readyz misbehave.
	Fault Fault
	// Hold, when set, makes every answer but /healthz, /livez and /readyz
	// wait until it is closed or the client hangs up: a slow node.
	Hold <-chan struct{}

	events  []v1alpha1.Event
	lastSeq uint64
	epoch   string
	epochs  int
	changed chan struct{}
	// dropAfter, when positive, makes the next stream break its connection
	// after sending that many events.
	dropAfter int
	queries   []url.Values
	// podQueries are the queries of the pod list requests.
	podQueries []url.Values
	streamCh   chan struct{}
}

// New returns a fake agent for node with a little of everything.
func New(node string) *Agent {
	a := &Agent{
		Served:    "v1alpha1",
		Capacity:  1000,
		Heartbeat: time.Second,
		epoch:     "epoch-1",
		epochs:    1,
		changed:   make(chan struct{}),
		streamCh:  make(chan struct{}, 100),
	}
	a.Sources = v1alpha1.SourceList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindSourceList), NodeName: node, Mode: "incremental", AllSourcesSeen: true, AgentVersion: "v0.1.0", ReproducedKubeletVersion: "v1.36.3"}
	a.Pods = v1alpha1.PodList{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: node}
	a.PLEG = v1alpha1.PLEGStatus{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus), NodeName: node, Enabled: true, Healthy: true}
	a.Version = v1alpha1.Version{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindVersion), AgentVersion: "v0.1.0", ServedVersion: "v1alpha1", ReproducedKubeletVersion: "v1.36.3", NodeName: node, GoVersion: "go1.26.8"}
	return a
}

// Lock and Unlock guard the exported state while the agent serves.
func (a *Agent) Lock()   { a.mu.Lock() }
func (a *Agent) Unlock() { a.mu.Unlock() }

// Publish appends events, numbering them and stamping a zero Time with now;
// it returns the last sequence number.
func (a *Agent) Publish(evs ...v1alpha1.Event) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ev := range evs {
		a.lastSeq++
		ev.Seq = a.lastSeq
		if ev.Time.IsZero() {
			ev.Time = metav1.NowMicro()
		}
		a.events = append(a.events, ev)
	}
	if n := len(a.events) - a.Capacity; a.Capacity > 0 && n > 0 {
		a.events = append([]v1alpha1.Event(nil), a.events[n:]...)
	}
	close(a.changed)
	a.changed = make(chan struct{})
	return a.lastSeq
}

// Restart forgets every event and starts a new epoch, as a restarted agent
// does.
func (a *Agent) Restart() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.events, a.lastSeq = nil, 0
	a.epochs++
	a.epoch = "epoch-" + strconv.Itoa(a.epochs)
	close(a.changed)
	a.changed = make(chan struct{})
}

// DropNextStreamAfter makes the next stream break its connection after
// sending n events.
func (a *Agent) DropNextStreamAfter(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dropAfter = n
}

// PodQueries returns the queries of every pod list request so far.
func (a *Agent) PodQueries() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.podQueries...)
}

// EventQueries returns the queries of every stream request so far.
func (a *Agent) EventQueries() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.queries...)
}

// StreamStarted receives once for every stream request served.
func (a *Agent) StreamStarted() <-chan struct{} { return a.streamCh }

// ServeHTTP serves the agent's API.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStatus(w, http.StatusMethodNotAllowed, "only GET")
		return
	}
	a.mu.Lock()
	served, fault, hold := a.Served, a.Fault, a.Hold
	a.mu.Unlock()
	p := r.URL.Path
	probe := slices.Contains(v1alpha1.ProbePaths, p)
	if hold != nil && !probe {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if fault != NoFault && !probe && (fault != FaultEndlessLine || p == v1alpha1.EventsPath) && fault != FaultMute {
		serveFault(fault, w, r)
		return
	}
	if strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/api/"+served+"/") {
		writeStatus(w, http.StatusNotFound, "no such path "+p)
		return
	}
	switch {
	case p == v1alpha1.VersionPath:
		a.writeLocked(w, func() any { return a.Version })
	case probe:
		w.Write([]byte("ok"))
	case p == v1alpha1.SourcesPath:
		a.writeLocked(w, func() any { return a.Sources })
	case p == v1alpha1.PLEGPath:
		a.writeLocked(w, func() any { return a.PLEG })
	case p == v1alpha1.PodsPath:
		a.servePods(w, r)
	case strings.HasPrefix(p, v1alpha1.PodPath("")):
		uid := strings.TrimPrefix(p, v1alpha1.PodPath(""))
		a.mu.Lock()
		var found *v1alpha1.PodInfo
		for i := range a.Pods.Items {
			if string(a.Pods.Items[i].UID) == uid {
				pi := a.Pods.Items[i]
				pi.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
				found = &pi
			}
		}
		a.mu.Unlock()
		if found == nil {
			writeStatus(w, http.StatusNotFound, "no pod with UID "+uid)
			return
		}
		writeJSON(w, http.StatusOK, found)
	case p == v1alpha1.EventsPath:
		a.serveEvents(w, r)
	default:
		writeStatus(w, http.StatusNotFound, "no such path "+p)
	}
}

// servePods lists the pods that the query (v1alpha1.PodQuery) keeps, as
// the agent does.
func (a *Agent) servePods(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.podQueries = append(a.podQueries, r.URL.Query())
	a.mu.Unlock()
	q, err := v1alpha1.ParsePodQuery(r.URL.Query())
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "bad pod list query: "+err.Error())
		return
	}
	a.writeLocked(w, func() any {
		l := a.Pods
		l.Items = nil
		for _, p := range a.Pods.Items {
			if q.Match(p) {
				l.Items = append(l.Items, p)
			}
		}
		return l
	})
}

// writeLocked writes what get returns under the lock.
func (a *Agent) writeLocked(w http.ResponseWriter, get func() any) {
	a.mu.Lock()
	v := get()
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, v)
}

// serveEvents streams newline-delimited StreamMessages the way the agent
// does, with the same query (v1alpha1.EventQuery) and filter: a plain stream
// starts now with a heartbeat, since=<seq> resumes (with a gap for evicted
// events, or a reset when epoch names another agent process; a since ahead
// of the last event in this epoch is a 400), since=<duration> starts at a
// time, snapshot=true starts with the pods its pod filter keeps, tail
// starts with the last events that pass, and until ends the stream with an
// end message.
func (a *Agent) serveEvents(w http.ResponseWriter, r *http.Request) {
	q, err := v1alpha1.ParseEventQuery(r.URL.Query())
	if err != nil {
		writeStatus(w, http.StatusBadRequest, err.Error())
		return
	}
	now := time.Now()
	a.mu.Lock()
	a.queries = append(a.queries, r.URL.Query())
	drop := a.dropAfter
	a.dropAfter = 0
	epoch := a.epoch
	cursor := a.lastSeq
	var first []*v1alpha1.StreamMessage
	var opening *v1alpha1.StreamMessage
	switch {
	case q.Since != nil && !q.Since.IsAge && q.Epoch != "" && q.Epoch != epoch:
		first = append(first, &v1alpha1.StreamMessage{Type: v1alpha1.MessageReset})
		cursor = 0
	case q.Since != nil && !q.Since.IsAge && q.Since.Seq > a.lastSeq:
		last := a.lastSeq
		a.mu.Unlock()
		writeStatus(w, http.StatusBadRequest, fmt.Sprintf("since=%d is ahead of the agent's last event %d (epoch %s)", q.Since.Seq, last, epoch))
		return
	case q.Snapshot:
		pods := a.Pods
		pq := q.PodQuery()
		pods.Items = slices.DeleteFunc(slices.Clone(pods.Items), func(p v1alpha1.PodInfo) bool { return !pq.Match(p) })
		first = append(first, &v1alpha1.StreamMessage{Type: v1alpha1.MessageSnapshot, Seq: cursor, Snapshot: &pods})
	case q.Since != nil:
		cursor = a.seqOf(*q.Since, now)
	default:
		// A plain stream starts now and says where now is.
		opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat}
	}
	until := uint64(math.MaxUint64)
	if q.Until != nil {
		until = a.seqOf(*q.Until, now)
		opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat, Until: &until}
	}
	if q.Tail > 0 && !q.Snapshot {
		after := cursor
		if q.Since == nil {
			after = 0
		}
		cursor = after
		for i, n := len(a.events)-1, q.Tail; i >= 0 && a.events[i].Seq > after && n > 0; i-- {
			if a.events[i].Seq > until {
				continue
			}
			if _, keep, _ := q.Match(a.events[i]); keep {
				cursor, n = a.events[i].Seq-1, n-1
			}
		}
		if opening == nil {
			opening = &v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat}
		}
	}
	if opening != nil {
		opening.Seq = cursor
		first = append(first, opening)
	}
	heartbeat, mute := a.Heartbeat, a.Fault == FaultMute
	a.mu.Unlock()
	select {
	case a.streamCh <- struct{}{}:
	default:
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	send := func(m *v1alpha1.StreamMessage) {
		m.Epoch = epoch
		if m.Time.IsZero() {
			m.Time = metav1.NowMicro()
		}
		enc.Encode(m)
	}
	for _, m := range first {
		send(m)
	}
	flusher.Flush()
	if mute {
		<-r.Context().Done()
		return
	}
	sent := 0
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		if cursor >= until {
			send(&v1alpha1.StreamMessage{Type: v1alpha1.MessageEnd, Seq: until})
			flusher.Flush()
			return
		}
		a.mu.Lock()
		if a.epoch != epoch {
			// This process is gone; so is its stream.
			a.mu.Unlock()
			panic(http.ErrAbortHandler)
		}
		var out []*v1alpha1.StreamMessage
		if len(a.events) > 0 && a.events[0].Seq > cursor+1 {
			to := min(a.events[0].Seq-1, until)
			out = append(out, &v1alpha1.StreamMessage{Type: v1alpha1.MessageGap, From: cursor + 1, To: to})
			cursor = to
		}
		for i := range a.events {
			ev := a.events[i]
			if ev.Seq <= cursor || ev.Seq > until {
				continue
			}
			cursor = ev.Seq
			if fe, keep, _ := q.Match(ev); keep {
				out = append(out, &v1alpha1.StreamMessage{Type: v1alpha1.MessageEvent, Event: &fe})
			}
		}
		changed := a.changed
		a.mu.Unlock()
		for _, m := range out {
			send(m)
			if m.Type == v1alpha1.MessageEvent {
				sent++
				if drop > 0 && sent >= drop {
					flusher.Flush()
					// Break the connection, as a crashing agent or a
					// broken network would.
					panic(http.ErrAbortHandler)
				}
			}
		}
		flusher.Flush()
		if cursor >= until {
			continue
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-tick.C:
			send(&v1alpha1.StreamMessage{Type: v1alpha1.MessageHeartbeat, Seq: cursor})
			flusher.Flush()
		}
	}
}

// seqOf returns the sequence number a mark stands for, as the agent's
// event ring resolves it: an age is the last event older than it. Call it
// locked.
func (a *Agent) seqOf(m v1alpha1.Mark, now time.Time) uint64 {
	if !m.IsAge {
		return m.Seq
	}
	from := now.Add(-m.Age)
	seq := a.lastSeq
	for i := len(a.events) - 1; i >= 0 && !a.events[i].Time.Time.Before(from); i-- {
		seq = a.events[i].Seq - 1
	}
	return seq
}

// writeJSON writes v with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// writeStatus writes the agent's error body.
func writeStatus(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, v1alpha1.Status{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindStatus), Code: code, Message: msg})
}
