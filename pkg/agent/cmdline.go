package agent

import (
	"net/http"
	"os"
	"strings"

	"github.com/podsrc/podsrc/pkg/redact"
	"github.com/podsrc/podsrc/pkg/source"
)

// maskedCommandLine returns args, the agent's command line, without its
// credentials: the static pod URL masked as the API serves it
// (redact.MaskURL), each static pod URL header's value replaced by
// redact.Masked, and any other URL in an argument masked (redact.MaskURLs).
// A flag's value may be in the flag's argument (--flag=value) or the next.
func maskedCommandLine(args []string) []string {
	out := make([]string, len(args))
	pending := "" // the flag whose value is the next argument
	for i, arg := range args {
		if pending != "" {
			out[i], pending = maskFlagValue(pending, arg), ""
			continue
		}
		out[i] = redact.MaskURLs(arg)
		if !strings.HasPrefix(arg, "-") {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if name != source.FlagStaticPodURL && name != source.FlagStaticPodURLHeader {
			continue
		}
		if !inline {
			pending = name
			continue
		}
		out[i] = arg[:len(arg)-len(value)] + maskFlagValue(name, value)
	}
	return out
}

// maskFlagValue masks the value of --static-pod-url or
// --static-pod-url-header.
func maskFlagValue(flag, value string) string {
	if flag == source.FlagStaticPodURL {
		return redact.MaskURL(value)
	}
	if name, _, ok := strings.Cut(value, ":"); ok {
		return name + ": " + redact.Masked
	}
	return redact.Masked
}

// serveCommandLine answers /debug/pprof/cmdline as net/http/pprof does,
// with the command line masked by maskedCommandLine: the profiling port is
// on loopback, where every hostNetwork pod of the node reaches it.
func serveCommandLine(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(strings.Join(maskedCommandLine(os.Args), "\x00")))
}
