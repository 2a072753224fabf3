package agent

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestProfilesOnLoopbackOnly checks that the API never serves profiles
// (/debug/pprof/cmdline shows every flag), that they are served on their
// own loopback listener, and that other addresses are refused.
func TestProfilesOnLoopbackOnly(t *testing.T) {
	ta := startAgent(t, func(c *Config) { c.EnableProfiling, c.ProfilingAddress = true, "127.0.0.1:0" })
	for _, path := range []string{"/debug/pprof/cmdline", "/debug/pprof/"} {
		if code, _ := ta.get(t, path); code != http.StatusNotFound {
			t.Errorf("the API answers %s with %d, want 404", path, code)
		}
	}

	addr, stop, err := ta.serveProfiling(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr.String() + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("the profiling listener answers %d %q", resp.StatusCode, body)
	}

	tests := []struct {
		address string
		ok      bool
	}{
		{address: "127.0.0.1:10271", ok: true},
		{address: "[::1]:10271", ok: true},
		{address: "localhost:10271", ok: true},
		{address: ":10271"},
		{address: "0.0.0.0:10271"},
		{address: "10.1.2.3:10271"},
		{address: "node-1:10271"},
	}
	for _, tt := range tests {
		o := NewOptions()
		o.Node.NodeName, o.RuntimeEndpoint = "n", ""
		o.EnableProfiling, o.ProfilingAddress = true, tt.address
		_, err := o.Complete(nil)
		if refused := err != nil && strings.Contains(err.Error(), "--profiling-address"); refused == tt.ok {
			t.Errorf("--profiling-address=%s: %v", tt.address, err)
		}
	}
}
