package deploy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"
)

// configzServer is a fake API server whose node proxy answers each node's
// /configz with that node's handler.
func configzServer(t *testing.T, kubelets map[string]http.HandlerFunc) kubernetes.Interface {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		node, ok := strings.CutPrefix(r.URL.Path, "/api/v1/nodes/")
		node, ok2 := strings.CutSuffix(node, "/proxy/configz")
		if h := kubelets[node]; ok && ok2 && h != nil {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// answerConfigz answers kc as the kubelet's /configz does.
func answerConfigz(kc kubeletconfig.KubeletConfiguration) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"kubeletconfig": kc})
	}
}

// endlessBody answers status with a body of up to limit bytes of "{",
// counting what it wrote in written.
func endlessBody(status int, limit int64, written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		chunk := []byte(strings.Repeat("{", 32<<10))
		for written.Load() < limit {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
}

// TestReadConfigzBounded checks that a kubelet answering /configz (or an
// error) without end makes deploy read no more than maxConfigz of it, with
// an error naming the node, and that a normal answer is read.
func TestReadConfigzBounded(t *testing.T) {
	const huge = 256 << 20
	var okWritten, errWritten atomic.Int64
	cs := configzServer(t, map[string]http.HandlerFunc{
		"good":         answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests"}),
		"endless":      endlessBody(http.StatusOK, huge, &okWritten),
		"endless-fail": endlessBody(http.StatusInternalServerError, huge, &errWritten),
		"forbidden":    func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "\x1b]0;owned\a", http.StatusForbidden) },
	})
	ctx := context.Background()
	kc, err := ReadConfigz(ctx, cs, "good")
	if err != nil || kc.StaticPodPath != "/etc/kubernetes/manifests" {
		t.Fatalf("good node: %+v, %v", kc, err)
	}
	tests := []struct{ node, want string }{
		{"endless", "reading /api/v1/nodes/endless/proxy/configz: the answer is longer than 1 MiB, the most deploy reads"},
		{"endless-fail", "reading /api/v1/nodes/endless-fail/proxy/configz: the answer is longer than 1 MiB, the most deploy reads"},
		{"forbidden", "reading /api/v1/nodes/forbidden/proxy/configz: forbidden: you may not get nodes/proxy"},
	}
	for _, tc := range tests {
		t.Run(tc.node, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ReadConfigz(ctx, cs, tc.node)
			runtime.ReadMemStats(&after)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			// Reading 1 MiB allocates a few; reading the answer whole
			// would allocate hundreds.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("reading node %s's /configz allocated %d MiB", tc.node, alloc>>20)
			}
		})
	}
	for name, w := range map[string]*atomic.Int64{"endless": &okWritten, "endless-fail": &errWritten} {
		if w.Load() >= huge {
			t.Errorf("node %s's /configz was read whole (%d MiB)", name, w.Load()>>20)
		}
	}
}
