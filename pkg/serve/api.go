package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
)

// State is what the API answers from, read at every request: the agent's
// sources, merge, view and PLEG.
type State interface {
	// Sources is the answer of /sources.
	Sources() v1alpha1.SourceList
	// PLEG is the answer of /pleg.
	PLEG() v1alpha1.PLEGStatus
	// Version is the answer of /version.
	Version() v1alpha1.Version
	// KubeletConfig is the answer of /kubeletconfig: the kubelet
	// configuration the agent read, masked.
	KubeletConfig() v1alpha1.KubeletConfig
	// Pods is the answer of /pods: the list without its items, and the
	// items that q keeps, one at a time, without a copy of the list.
	Pods(q *v1alpha1.PodQuery) (head v1alpha1.PodList, items func(yield func(v1alpha1.PodInfo) error) error)
	// Pod is the answer of /pods/{uid}, or an error that says no source
	// and no runtime has the pod (a 404).
	Pod(uid types.UID) (v1alpha1.PodInfo, error)
	// Snapshot is the start of a stream that starts with a snapshot
	// (StreamOptions.Snapshot).
	Snapshot(q *v1alpha1.PodQuery) (seq uint64, head v1alpha1.PodList, items func(yield func(v1alpha1.PodInfo) error) error)
	// Live and Ready are /livez and /readyz: nil, or why not.
	Live() error
	Ready() error
}

// API is the agent's HTTP API over a State: its routes, its limits and
// its event stream.
type API struct {
	State State
	// Ring is the event sequence the streams read; History, when set,
	// the events older than it keeps (StreamOptions.History).
	Ring    *eventring.Ring
	History History
	// Heartbeat and StreamWriteTimeout are the streams' (StreamOptions).
	Heartbeat          time.Duration
	StreamWriteTimeout time.Duration
	// Stopping, when closed, ends every stream.
	Stopping <-chan struct{}
	// AllowedNets are the networks the API answers (all when empty;
	// AllowNets).
	AllowedNets []netip.Prefix
	// Streams and Snapshots are the slots of the open event streams and
	// of the snapshot requests in progress.
	Streams, Snapshots *Slots
	// Metrics count the streams; MetricsHandler, when set, serves
	// /metrics.
	Metrics        *Metrics
	MetricsHandler http.Handler
}

// Handler returns the agent's HTTP API: only GET (and HEAD), from the
// allowed networks. It routes on the escaped path, so that a pod's UID is
// one segment of it whatever characters it holds ("/" too).
func (api *API) Handler() http.Handler {
	r := mux.NewRouter().UseEncodedPath()
	get := func(path string, h http.HandlerFunc) {
		r.HandleFunc(path, h).Methods(http.MethodGet, http.MethodHead)
	}
	snapshot := func(h http.HandlerFunc) http.HandlerFunc {
		return api.Snapshots.Limit(WithMinRate(h))
	}
	get(v1alpha1.SourcesPath, snapshot(api.handleSources))
	get(v1alpha1.PodsPath, snapshot(api.handlePods))
	get(v1alpha1.PodPath("{uid}"), snapshot(api.handlePod))
	get(v1alpha1.PLEGPath, WithDeadline(api.handlePLEG))
	get(v1alpha1.KubeletConfigPath, WithDeadline(api.handleKubeletConfig))
	// The stream answers GET only: a HEAD would hold its connection while
	// heartbeats went nowhere.
	r.HandleFunc(v1alpha1.EventsPath, api.Streams.Limit(api.handleEvents)).Methods(http.MethodGet)
	get(v1alpha1.VersionPath, WithDeadline(api.handleVersion))
	for path, h := range api.probes() {
		get(path, h)
	}
	if api.MetricsHandler != nil {
		r.Handle(v1alpha1.MetricsPath, api.MetricsHandler).Methods(http.MethodGet)
	}
	r.NotFoundHandler = http.HandlerFunc(NotFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		WriteError(w, http.StatusMethodNotAllowed, "the podsrc agent serves only GET")
	})
	return AllowNets(api.AllowedNets, r)
}

// NotFound answers a path the API does not serve.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, http.StatusNotFound, "no such endpoint: "+strconv.Quote(r.URL.EscapedPath())+" (see "+strings.Join([]string{v1alpha1.SourcesPath, v1alpha1.PodsPath, v1alpha1.PLEGPath, v1alpha1.EventsPath}, ", ")+")")
}

func (api *API) handleSources(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, api.State.Sources())
}

// handlePods writes the pods that the query (v1alpha1.PodQuery) keeps,
// item by item (see WriteWithItems): a client that reads slowly holds the
// view's sorted pointers and a bounded buffer, not an encoding of every
// pod, and the pods the query leaves out are never encoded.
func (api *API) handlePods(w http.ResponseWriter, r *http.Request) {
	q, err := v1alpha1.ParsePodQuery(r.URL.Query())
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad pod list query: "+err.Error())
		return
	}
	head, items := api.State.Pods(&q)
	doc, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "encoding the pod list: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if err := WriteWithItems(w, func() {}, append(doc, '\n'), "  ", items); err != nil {
		klog.FromContext(r.Context()).V(3).Info("Pod list not written", "remote", r.RemoteAddr, "err", err)
	}
}

// handlePod writes one pod; its UID comes escaped (see Handler).
func (api *API) handlePod(w http.ResponseWriter, r *http.Request) {
	uid, err := url.PathUnescape(mux.Vars(r)["uid"])
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad pod UID in "+r.URL.EscapedPath()+": "+err.Error())
		return
	}
	info, err := api.State.Pod(types.UID(uid))
	if err != nil {
		WriteError(w, http.StatusNotFound, err.Error())
		return
	}
	WriteJSON(w, http.StatusOK, info)
}

func (api *API) handlePLEG(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, api.State.PLEG())
}

func (api *API) handleKubeletConfig(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, api.State.KubeletConfig())
}

func (api *API) handleVersion(w http.ResponseWriter, _ *http.Request) {
	WriteJSON(w, http.StatusOK, api.State.Version())
}

// handleEvents streams the event sequence as newline-delimited JSON
// (Stream).
func (api *API) handleEvents(w http.ResponseWriter, r *http.Request) {
	q, err := ParseStreamQuery(r.URL.Query(), api.Ring)
	if err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	// A stream that starts with a snapshot counts as a snapshot request
	// until the snapshot is written.
	var giveSnapshot func()
	if q.Snapshot {
		var ok bool
		if giveSnapshot, ok = api.Snapshots.Take(w, r); !ok {
			return
		}
		defer func() {
			if giveSnapshot != nil {
				giveSnapshot()
			}
		}()
	}
	api.Metrics.Subscribers.Inc()
	defer api.Metrics.Subscribers.Dec()
	err = Stream(w, r, &q, StreamOptions{
		Ring:         api.Ring,
		History:      api.History,
		Heartbeat:    api.Heartbeat,
		WriteTimeout: api.StreamWriteTimeout,
		Stopping:     api.Stopping,
		Snapshot:     api.State.Snapshot,
		SnapshotWritten: func() {
			if giveSnapshot != nil {
				giveSnapshot()
				giveSnapshot = nil
			}
		},
	})
	if errors.Is(err, ErrLagging) {
		api.Metrics.Lagging.Inc()
	}
	klog.FromContext(r.Context()).V(3).Info("Event stream ended", "remote", r.RemoteAddr, "err", err)
}
