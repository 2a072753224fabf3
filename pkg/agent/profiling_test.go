package agent

import (
	"io"
	"net/http"
	"os"
	"slices"
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

	if body := profilingCmdline(t, ta); len(body) == 0 {
		t.Fatal("the profiling listener answers no command line")
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

// TestProfilingCommandLineIsMasked asks the profiling listener for
// /debug/pprof/cmdline of an agent started with a static pod URL with
// credentials and headers, in every form the flags take: the answer has
// the flags, with the URL masked as the API serves it and no header value.
func TestProfilingCommandLineIsMasked(t *testing.T) {
	args := []string{
		"podsrc-agent", "--node-name=node-1",
		"--static-pod-url=http://user:pass-c0ffee@10.0.0.1:8080/pods?token=query-c0ffee",
		"--static-pod-url-header", "Authorization: Bearer header-c0ffee",
		"--static-pod-url-header=X-Api-Key:key-c0ffee",
		"-static-pod-url-header=no colon token-c0ffee",
		"--static-pod-url", "https://user2:pass2-c0ffee@config.example/pods",
		"-v=4",
	}
	want := []string{
		"podsrc-agent", "--node-name=node-1",
		"--static-pod-url=http://xxxxx@10.0.0.1:8080/pods?token=xxxxx",
		"--static-pod-url-header", "Authorization: xxxxx",
		"--static-pod-url-header=X-Api-Key: xxxxx",
		"-static-pod-url-header=xxxxx",
		"--static-pod-url", "https://xxxxx@config.example/pods",
		"-v=4",
	}
	saved := os.Args
	os.Args = args
	t.Cleanup(func() { os.Args = saved })

	ta := startAgent(t, func(c *Config) { c.EnableProfiling, c.ProfilingAddress = true, "127.0.0.1:0" })
	body := profilingCmdline(t, ta)
	if got := strings.Split(string(body), "\x00"); !slices.Equal(got, want) {
		t.Errorf("cmdline\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(string(body), "c0ffee") {
		t.Errorf("cmdline shows a credential: %q", body)
	}
}

// profilingCmdline serves ta's profiles on their own listener and returns
// its answer to /debug/pprof/cmdline, which must succeed.
func profilingCmdline(t *testing.T, ta *testAgent) []byte {
	t.Helper()
	addr, stop, err := ta.serveProfiling(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr.String() + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the profiling listener answers %d %q (%v)", resp.StatusCode, body, err)
	}
	return body
}
