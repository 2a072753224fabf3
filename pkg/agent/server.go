package agent

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
)

// Handler returns the agent's HTTP API: only GET (and HEAD), from the
// allowed networks.
func (a *Agent) Handler() http.Handler {
	r := mux.NewRouter()
	get := func(path string, h http.HandlerFunc) {
		r.HandleFunc(path, h).Methods(http.MethodGet, http.MethodHead)
	}
	snapshot := func(h http.HandlerFunc) http.HandlerFunc {
		return a.snapshots.Limit(serve.WithMinRate(h))
	}
	get(v1alpha1.SourcesPath, snapshot(a.handleSources))
	get(v1alpha1.PodsPath, snapshot(a.handlePods))
	get(v1alpha1.PodPath("{uid}"), snapshot(a.handlePod))
	get(v1alpha1.PLEGPath, serve.WithDeadline(a.handlePLEG))
	// The stream answers GET only: a HEAD would hold its connection while
	// heartbeats went nowhere.
	r.HandleFunc(v1alpha1.EventsPath, a.streams.Limit(a.handleEvents)).Methods(http.MethodGet)
	get(v1alpha1.VersionPath, serve.WithDeadline(a.handleVersion))
	for path, h := range a.probes() {
		get(path, h)
	}
	r.Handle(v1alpha1.MetricsPath, promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{})).Methods(http.MethodGet)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		serve.WriteError(w, http.StatusNotFound, "no such endpoint: "+req.URL.Path+" (see "+strings.Join([]string{v1alpha1.SourcesPath, v1alpha1.PodsPath, v1alpha1.PLEGPath, v1alpha1.EventsPath}, ", ")+")")
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		serve.WriteError(w, http.StatusMethodNotAllowed, "the podsrc agent serves only GET")
	})
	return serve.AllowNets(a.cfg.AllowedNets, r)
}
