// Package fakeagent serves the podsrc agent's HTTP API from canned state, for
// tests of the client and the kubectl plugin. It answers with the agent's
// own API (serve.API over a serve.State made of the fake's fields, its
// event stream over an eventring.Ring), with faults around it: a slow
// node, broken answers, a connection dropped mid-stream, a restart.
package fakeagent

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve"
)

// Agent is a fake podsrc agent. Set its exported state before serving, or
// under Lock.
type Agent struct {
	mu sync.Mutex

	// Sources, Pods, PLEG, Version and KubeletConfig are served as they
	// are.
	Sources       v1alpha1.SourceList
	Pods          v1alpha1.PodList
	PLEG          v1alpha1.PLEGStatus
	Version       v1alpha1.Version
	KubeletConfig v1alpha1.KubeletConfig
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
	// api and apiHandler serve the process's API (handlerLocked).
	api        *serve.API
	apiHandler http.Handler
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
	a.KubeletConfig = v1alpha1.KubeletConfig{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindKubeletConfig), NodeName: node,
		Config: &kubeletv1beta1.KubeletConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: kubeletv1beta1.SchemeGroupVersion.String(), Kind: "KubeletConfiguration"}, StaticPodPath: "/etc/kubernetes/manifests"}}
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
// stream's start is set (see streamWriter): what is published after it is
// streamed.
func (a *Agent) StreamStarted() <-chan struct{} { return a.streamCh }

// ServeHTTP serves the agent's API: serve.API's handler over the fake's
// state (see state), with the fake's faults around it. The probes answer
// whatever the faults; every other path waits for Hold, then misbehaves as
// Fault says, and answers 404 under /api/v1alpha1 when Served is another
// version.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if slices.Contains(v1alpha1.ProbePaths, p) {
		a.handler().ServeHTTP(w, r)
		return
	}
	a.mu.Lock()
	served, fault, hold := a.Served, a.Fault, a.Hold
	a.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	stream := p == v1alpha1.EventsPath
	if fault != NoFault && fault != FaultMute && (fault != FaultEndlessLine || stream) {
		serveFault(fault, w, r)
		return
	}
	if served != v1alpha1.VersionName && strings.HasPrefix(p, v1alpha1.APIPrefix+"/") {
		serve.NotFound(w, r)
		return
	}
	a.mu.Lock()
	switch p {
	case v1alpha1.PodsPath:
		a.podQueries = append(a.podQueries, r.URL.Query())
	case v1alpha1.EventsPath:
		a.queries = append(a.queries, r.URL.Query())
	}
	h, stopped := a.handlerLocked(), a.stopped
	a.mu.Unlock()
	if !stream {
		h.ServeHTTP(w, r)
		return
	}
	h.ServeHTTP(a.streamWriter(w, r, fault == FaultMute), r)
	select {
	case <-stopped:
		// The process is gone; so is its stream.
		panic(http.ErrAbortHandler)
	default:
	}
}

// handler returns the API of the agent's process (handlerLocked).
func (a *Agent) handler() http.Handler {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.handlerLocked()
}

// handlerLocked returns the API of the agent's process: serve.API over
// its state and its event ring, without limits or metrics to speak of.
// Restart starts another; so does a change of Heartbeat. Call it locked.
func (a *Agent) handlerLocked() http.Handler {
	ring := a.ringLocked()
	if a.api != nil && a.api.Ring == ring && a.api.Heartbeat == a.Heartbeat {
		return a.apiHandler
	}
	metrics := serve.NewMetrics()
	a.api = &serve.API{
		State:     state{a},
		Ring:      ring,
		Heartbeat: a.Heartbeat,
		Stopping:  a.stopped,
		Streams:   unlimited.StreamSlots(metrics.Refused),
		Snapshots: unlimited.SnapshotSlots(metrics.Refused),
		Metrics:   metrics,
	}
	a.apiHandler = a.api.Handler()
	return a.apiHandler
}

// unlimited are the fake's limits: none a test reaches.
var unlimited = serve.Limits{
	MaxStreams:          math.MaxInt,
	MaxStreamsPerPeer:   math.MaxInt,
	MaxSnapshots:        math.MaxInt,
	MaxSnapshotsPerPeer: math.MaxInt,
}
