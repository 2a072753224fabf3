package serve

import (
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Server limits: the agent listens on the node's network.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	idleTimeout       = 90 * time.Second
	maxHeaderBytes    = 16 << 10
	// WriteTimeout bounds every response but the event stream, which sets
	// a deadline per write instead; a snapshot must also keep a minimum
	// rate (WithMinRate).
	WriteTimeout = 30 * time.Second
)

// NewServer returns the HTTP server of the agent's API h, which serves on
// l.
func NewServer(h http.Handler, l *LimitListener) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         l.ConnState,
	}
}

// NewProbeServer returns the HTTP server of the probes' listener l, which
// serves h with one request per connection, as the kubelet's prober
// makes them: nothing stays open between probes.
func NewProbeServer(h http.Handler, l *LimitListener) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         l.ConnState,
	}
	srv.SetKeepAlivesEnabled(false)
	return srv
}

// NewLoopbackServer returns an HTTP server of h for a loopback listener
// (the profiling port): it bounds only the request's headers.
func NewLoopbackServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, MaxHeaderBytes: maxHeaderBytes}
}

// WithDeadline bounds the time a plain response may take to write.
func WithDeadline(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(WriteTimeout))
		h(w, r)
	}
}

// healthPaths are the endpoints the kubelet probes, from the node's own
// address; --allowed-cidrs does not guard them, so that a list naming the
// control plane does not fail the probes and restart the agent in a loop
// when they are served on the API's port (--probe-address="").
var healthPaths = map[string]bool{v1alpha1.HealthzPath: true, v1alpha1.LivezPath: true, v1alpha1.ReadyzPath: true}

// AllowNets refuses connections from outside nets to everything but the
// health endpoints; with no nets, it serves next to everyone.
func AllowNets(nets []netip.Prefix, next http.Handler) http.Handler {
	if len(nets) == 0 {
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
				for _, n := range nets {
					if n.Contains(ip) {
						next.ServeHTTP(w, r)
						return
					}
				}
			}
		}
		WriteError(w, http.StatusForbidden, "connections from "+host+" are not allowed (--allowed-cidrs)")
	})
}
