package agent

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"strings"

	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/source"
)

// DefaultProfilingAddress is where --enable-profiling serves Go's profiles:
// the node's loopback, which the network cannot reach.
const DefaultProfilingAddress = "127.0.0.1:10271"

// checkLoopback refuses a profiling address that is not on loopback:
// profiles show the agent's inner workings, and /debug/pprof/cmdline its
// command line (masked, serveCommandLine).
func checkLoopback(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("--profiling-address %q: %w", address, err)
	}
	if ip, err := netip.ParseAddr(host); (err != nil || !ip.IsLoopback()) && host != "localhost" {
		return fmt.Errorf("--profiling-address %q: profiles are served on loopback only (for example %s); reach them with kubectl port-forward", address, DefaultProfilingAddress)
	}
	return nil
}

// serveProfiling serves Go's profiles under /debug/pprof/ on its own
// loopback listener, apart from the API, until stop is called.
func (a *Agent) serveProfiling(ctx context.Context) (addr net.Addr, stop func(), err error) {
	lis, err := net.Listen("tcp", a.cfg.ProfilingAddress)
	if err != nil {
		return nil, nil, fmt.Errorf("--profiling-address %s: %w", a.cfg.ProfilingAddress, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", serveCommandLine)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := serve.NewLoopbackServer(mux)
	go func() { _ = srv.Serve(lis) }()
	klog.FromContext(ctx).Info("Serving Go profiles", "address", lis.Addr().String())
	return lis.Addr(), func() { _ = srv.Close() }, nil
}

// serveCommandLine answers /debug/pprof/cmdline as net/http/pprof does,
// with the command line masked by redact.CommandLine: the profiling port is
// on loopback, where every hostNetwork pod of the node reaches it.
func serveCommandLine(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(strings.Join(redact.CommandLine(os.Args, source.FlagStaticPodURL, source.FlagStaticPodURLHeader), "\x00")))
}
