package agent

import (
	"net/http"
	"strings"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
)

// DefaultProbePort is the port the DaemonSet has the kubelet probe the
// agent on (--probe-address): a listener of the probes' own, apart from the
// API's port.
const DefaultProbePort = 10272

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

// probes returns the handlers of the endpoints the kubelet probes.
func (a *Agent) probes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		v1alpha1.HealthzPath: serve.WithDeadline(a.handleHealthz),
		v1alpha1.LivezPath:   serve.WithDeadline(a.handleLivez),
		v1alpha1.ReadyzPath:  serve.WithDeadline(a.handleReadyz),
	}
}

// probeHandler is what the probes' listener serves (serve.NewProbeServer):
// /healthz, /livez and /readyz only, GET (and HEAD) only, one request per
// connection, for every peer (--allowed-cidrs does not apply: the kubelet
// probes from the node's address). No data client's connection counts
// against it.
func (a *Agent) probeHandler() http.Handler {
	mux := http.NewServeMux()
	for path, h := range a.probes() {
		mux.HandleFunc("GET "+path, h)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		serve.WriteError(w, http.StatusNotFound, "the probe port serves "+strings.Join(v1alpha1.ProbePaths, ", ")+" (GET) only")
	})
	return mux
}
