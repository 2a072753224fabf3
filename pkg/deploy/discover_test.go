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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
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

// TestDiscoverRefusesHostPaths checks that a node whose /configz names a
// host path outside the kubelet locations is refused, with an error naming
// the node, the path and the flag, unless the caller allows that path.
func TestDiscoverRefusesHostPaths(t *testing.T) {
	cs := configzServer(t, map[string]http.HandlerFunc{
		"kubeadm":  answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests/"}),
		"k3s":      answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/var/lib/rancher/k3s/agent/pod-manifests", ContainerRuntimeEndpoint: "unix:///run/k3s/containerd/containerd.sock"}),
		"dockerd":  answerConfigz(kubeletconfig.KubeletConfiguration{ContainerRuntimeEndpoint: "unix:///var/run/cri-dockerd.sock"}),
		"root":     answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/root"}),
		"root-2":   answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/root"}),
		"backstep": answerConfigz(kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/../shadow"}),
		"lookalike": answerConfigz(kubeletconfig.KubeletConfiguration{
			StaticPodPath: "/etc/kubernetes/manifests", ContainerRuntimeEndpoint: "unix:///run/containerd-evil/x.sock",
		}),
		"under-run": answerConfigz(kubeletconfig.KubeletConfiguration{ContainerRuntimeEndpoint: "unix:///run/secrets/x/c.sock"}),
	})
	nodes := func(names ...string) []corev1.Node {
		var out []corev1.Node
		for _, n := range names {
			out = append(out, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}, Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.36.0"}}})
		}
		return out
	}
	ctx := context.Background()
	if _, err := Discover(ctx, cs, nodes("kubeadm", "k3s", "dockerd"), Overrides{}); err != nil {
		t.Fatalf("kubelet locations refused: %v", err)
	}
	tests := []struct {
		nodes   []string
		over    Overrides
		wantErr string
	}{{
		nodes:   []string{"kubeadm", "root-2", "root"},
		wantErr: "refusing to mount host paths: the static pod path of nodes root, root-2 is /root, which is not where kubelets keep theirs (/etc/kubernetes, /etc/kubelet.d, /var/lib/kubelet, ...): if it is right, pass --allow-host-path=/root",
	}, {
		nodes:   []string{"backstep"},
		wantErr: "the static pod path of node backstep is /etc/shadow,",
	}, {
		nodes:   []string{"lookalike"},
		wantErr: "the CRI socket's directory of node lookalike is /run/containerd-evil,",
	}, {
		nodes:   []string{"under-run"},
		wantErr: "pass --allow-host-path=/run/secrets/x",
	}, {
		nodes: []string{"root", "under-run"},
		over:  Overrides{AllowHostPaths: []string{"/root", "/run/secrets"}},
	}, {
		nodes: []string{"root"},
		over:  Overrides{StaticPodPath: ptr.To("/root")},
	}}
	for _, tc := range tests {
		t.Run(strings.Join(tc.nodes, ","), func(t *testing.T) {
			_, err := Discover(ctx, cs, nodes(tc.nodes...), tc.over)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("allowed paths refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one with %q", err, tc.wantErr)
			}
		})
	}
}
