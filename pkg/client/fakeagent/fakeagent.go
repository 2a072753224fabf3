// Package fakeagent serves the podsrc agent's HTTP API from canned state, for
// tests of the client and the kubectl plugin. Its event stream is the
// agent's own (serve.Stream over an eventring.Ring), and can be told to
// drop a connection mid-stream.
package fakeagent

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
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
	// Capacity bounds the event buffer, as the agent's --event-buffer
	// (eventring.DefaultCapacity when not positive); older events are
	// evicted. Set it before the first Publish.
	Capacity int
	// Heartbeat is the interval of heartbeats.
	Heartbeat time.Duration
	// Fault, when set, makes every answer but /healthz, /livez and
	// /readyz misbehave.
	Fault Fault
	// Hold, when set, makes every answer but /healthz, /livez and /readyz
	// wait until it is closed or the client hangs up: a slow node.
	Hold <-chan struct{}

	// ring is the event ring of the agent's process (ringLocked), which
	// Restart replaces; epochs counts the processes, and stopped closes
	// when the process ends.
	ring    *eventring.Ring
	epochs  int
	stopped chan struct{}
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
		Heartbeat: time.Second,
		epochs:    1,
		stopped:   make(chan struct{}),
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
	ring := a.ringLocked()
	for _, ev := range evs {
		ring.Publish(ev)
	}
	return ring.LastSeq()
}

// Restart forgets every event and starts a new epoch, as a restarted agent
// does; the streams of the old one break.
func (a *Agent) Restart() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ring = nil
	a.epochs++
	close(a.stopped)
	a.stopped = make(chan struct{})
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

// StreamStarted receives once for every stream request served, once the
// stream's start is set: what is published after it is streamed.
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
