package agent

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Server limits: the agent listens on the node's network.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	idleTimeout       = 90 * time.Second
	maxHeaderBytes    = 16 << 10
	// writeTimeout bounds every response but the event stream, which sets
	// a deadline per write instead; a snapshot must also keep a minimum
	// rate (withMinRate).
	writeTimeout = 30 * time.Second
)

// server returns the HTTP server of the agent's API, which serves on l.
func (a *Agent) server(l *limitListener) *http.Server {
	return &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         l.connState,
	}
}

// Handler returns the agent's HTTP API: only GET (and HEAD), from the
// allowed networks.
func (a *Agent) Handler() http.Handler {
	r := mux.NewRouter()
	get := func(path string, h http.HandlerFunc) {
		r.HandleFunc(path, h).Methods(http.MethodGet, http.MethodHead)
	}
	snapshot := func(h http.HandlerFunc) http.HandlerFunc {
		return a.limited(a.snapshots, withMinRate(h))
	}
	get(v1alpha1.SourcesPath, snapshot(a.handleSources))
	get(v1alpha1.PodsPath, snapshot(a.handlePods))
	get(v1alpha1.PodPath("{uid}"), snapshot(a.handlePod))
	get(v1alpha1.PLEGPath, a.withDeadline(a.handlePLEG))
	// The stream answers GET only: a HEAD would hold its connection while
	// heartbeats went nowhere.
	r.HandleFunc(v1alpha1.EventsPath, a.limited(a.streams, a.handleEvents)).Methods(http.MethodGet)
	get(v1alpha1.VersionPath, a.withDeadline(a.handleVersion))
	for path, h := range a.probes() {
		get(path, h)
	}
	r.Handle(v1alpha1.MetricsPath, promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{})).Methods(http.MethodGet)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+req.URL.Path+" (see "+strings.Join([]string{v1alpha1.SourcesPath, v1alpha1.PodsPath, v1alpha1.PLEGPath, v1alpha1.EventsPath}, ", ")+")")
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, "the podsrc agent serves only GET")
	})
	return a.allowNets(r)
}

// withDeadline bounds the time a plain response may take to write.
func (a *Agent) withDeadline(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
		h(w, r)
	}
}

// healthPaths are the endpoints the kubelet probes, from the node's own
// address; --allowed-cidrs does not guard them, so that a list naming the
// control plane does not fail the probes and restart the agent in a loop
// when they are served on the API's port (--probe-address="").
var healthPaths = map[string]bool{v1alpha1.HealthzPath: true, v1alpha1.LivezPath: true, v1alpha1.ReadyzPath: true}

// allowNets refuses connections from outside the allowed networks to
// everything but the health endpoints.
func (a *Agent) allowNets(next http.Handler) http.Handler {
	if len(a.cfg.AllowedNets) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if healthPaths[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err == nil {
			if ip, perr := netip.ParseAddr(host); perr == nil {
				ip = ip.Unmap()
				for _, n := range a.cfg.AllowedNets {
					if n.Contains(ip) {
						next.ServeHTTP(w, r)
						return
					}
				}
			}
		}
		writeError(w, http.StatusForbidden, "connections from "+host+" are not allowed (--allowed-cidrs)")
	})
}

// writeJSON writes v as the answer.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError writes a Status.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, errorStatus(code, msg))
}

// errorStatus is the Status of an error answer.
func errorStatus(code int, msg string) v1alpha1.Status {
	return v1alpha1.Status{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindStatus), Code: code, Message: msg}
}

// statusJSON returns a Status as writeError encodes it.
func statusJSON(code int, msg string) []byte {
	b, _ := json.MarshalIndent(errorStatus(code, msg), "", "  ")
	return append(b, '\n')
}
