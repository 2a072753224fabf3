package serve

import (
	"net/http"
	"strings"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Limits of the probes' listener. A probe is answered at once and its
// connection closed, so only a client that sends nothing (or its headers a
// byte at a time) can hold one, and such a connection is idle: the next one
// takes its place. The kubelet's probes come from the node's address, which
// hostNetwork pods share; the per-peer limit keeps any other address from
// taking more than a quarter of them.
const (
	probeMaxConnections        = 64
	probeMaxConnectionsPerPeer = 16
)

// ProbeConnLimits are the limits of the probes' own listener.
func ProbeConnLimits() ConnLimits {
	return ConnLimits{Total: probeMaxConnections, PerPeer: probeMaxConnectionsPerPeer, Name: "probe-connections"}
}

// probes returns the handlers of the endpoints the kubelet probes.
func (api *API) probes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		v1alpha1.HealthzPath: WithDeadline(handleHealthz),
		// Not live is a 500, not ready a 503.
		v1alpha1.LivezPath:  WithDeadline(probe(http.StatusInternalServerError, api.State.Live)),
		v1alpha1.ReadyzPath: WithDeadline(probe(http.StatusServiceUnavailable, api.State.Ready)),
	}
}

// ProbeHandler is what the probes' listener serves (NewProbeServer):
// /healthz, /livez and /readyz only, GET (and HEAD) only, one request per
// connection, for every peer (--allowed-cidrs does not apply: the kubelet
// probes from the node's address). No data client's connection counts
// against it.
func (api *API) ProbeHandler() http.Handler {
	mux := http.NewServeMux()
	for path, h := range api.probes() {
		mux.HandleFunc("GET "+path, h)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		WriteError(w, http.StatusNotFound, "the probe port serves "+strings.Join(v1alpha1.ProbePaths, ", ")+" (GET) only")
	})
	return mux
}

func handleHealthz(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

// probe answers ok, or code with why not when check fails.
func probe(code int, check func() error) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if err := check(); err != nil {
			writeText(w, code, err.Error())
			return
		}
		writeText(w, http.StatusOK, "ok")
	}
}

func writeText(w http.ResponseWriter, code int, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(s + "\n"))
}
