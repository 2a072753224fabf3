package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"
)

// deployAPIServer adds to fakeAPIServer the EndpointSlice of Service
// kubernetes, the API server's address, which deploy reads.
type deployAPIServer struct {
	fakeAPIServer
}

func (d *deployAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices" {
		d.fakeAPIServer.ServeHTTP(w, r)
		return
	}
	l := discoveryv1.EndpointSliceList{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSliceList"}, Items: []discoveryv1.EndpointSlice{{
		ObjectMeta:  metav1.ObjectMeta{Name: "kubernetes", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}},
	}}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(l)
}

// kubelets serves, through a fake API server's node proxy, each node's
// /configz from its handler, and returns the kubeconfig.
func kubelets(t *testing.T, configz map[string]http.HandlerFunc) string {
	t.Helper()
	api := &deployAPIServer{fakeAPIServer{agents: map[string]string{}, kubelet: "v1.36.2"}}
	for node, h := range configz {
		mux := http.NewServeMux()
		mux.Handle("/configz", h)
		api.agents[node] = serveUntilCleanup(t, mux)
		api.nodes = append(api.nodes, node)
	}
	return kubeconfig(t, serveUntilCleanup(t, api))
}

// configzOf answers kc as a kubelet's /configz.
func configzOf(kc kubeletconfig.KubeletConfiguration) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"kubeletconfig": kc})
	}
}

// kubeadmConfigz is an honest kubeadm node's configuration.
var kubeadmConfigz = kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests", ContainerRuntimeEndpoint: "unix:///run/containerd/containerd.sock"}

// endlessConfigz answers up to limit bytes of "{" and says in written how
// many it got to write.
func endlessConfigz(limit int64, written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		n, _ := io.CopyN(w, braces{}, limit)
		written.Store(n)
	}
}

// braces reads as "{" without end.
type braces struct{}

func (braces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '{'
	}
	return len(p), nil
}

// TestDeployHostileNodes runs kubectl podsrc deploy --print-only against
// nodes whose /configz answers are hostile: an endless body, terminal
// escapes and credentials, host paths outside the kubelet locations, a
// layout tuned to win a tie. Each is read within bounds, shown escaped and
// masked, refused, or left to the user; the API server's address is what
// the agents answer.
func TestDeployHostileNodes(t *testing.T) {
	const huge = 512 << 20
	var written atomic.Int64
	tuned := kubeadmConfigz
	tuned.FeatureGates = map[string]bool{"SortsFirst": true}
	credentials := kubeadmConfigz
	credentials.StaticPodURL = "http://pods:s3cret@10.0.0.9/\u202epods?token=t0ken"
	credentials.StaticPodURLHeader = map[string][]string{"Authorization": {"Bearer s3cret"}}
	escapes := kubeadmConfigz
	escapes.StaticPodPath = "/etc/kubernetes/\x1b]0;owned\a\x1b[2J"
	outside := kubeadmConfigz
	outside.StaticPodPath = "/root/.ssh"
	outside.ContainerRuntimeEndpoint = "unix:///var/lib/docker/evil.sock"
	secrets := []string{"s3cret", "t0ken", base64.StdEncoding.EncodeToString([]byte("http://pods:s3cret"))[:12]}

	tests := []struct {
		name     string
		configz  map[string]http.HandlerFunc
		args     []string
		wantErr  string
		want     []string // in stdout and stderr together
		wantCode int
	}{{
		name: "endless body",
		configz: map[string]http.HandlerFunc{
			"honest-1": configzOf(kubeadmConfigz), "honest-2": configzOf(kubeadmConfigz), "endless": endlessConfigz(huge, &written),
		},
		want: []string{
			"Warning: could not read the kubelet configuration of node endless (the answer is longer than 1 MiB, the most deploy reads); assumed the layout of kubeadm or kind with containerd.",
			"agents answer only 10.0.0.1/32 (the API server's addresses",
			"- --allowed-cidrs=10.0.0.1/32",
		},
	}, {
		name: "terminal escapes and credentials",
		configz: map[string]http.HandlerFunc{
			"honest-1": configzOf(kubeadmConfigz), "honest-2": configzOf(kubeadmConfigz), "credentials": configzOf(credentials),
			"garbage": func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("\x1b]0;owned\a\u009b2J")) },
		},
		want: []string{
			`Warning: could not read the kubelet configuration of node garbage (invalid character '\x1b' looking for beginning of value)`,
			"static pod URL http://xxxxx@10.0.0.9/%E2%80%AEpods?token=xxxxx,",
			"its static pod URL and headers are in Secret podsrc-agent-",
			"is printed with its credentials masked (xxxxx)",
			"- --static-pod-url-file=/etc/podsrc/static-pod-url/url",
			"- --static-pod-url-header-file=/etc/podsrc/static-pod-url/headers",
			"kind: Secret",
		},
	}, {
		name:     "terminal escapes in a host path",
		configz:  map[string]http.HandlerFunc{"honest-1": configzOf(kubeadmConfigz), "escapes": configzOf(escapes)},
		wantCode: 1,
		want:     []string{`error: node escapes: static pod path "/etc/kubernetes/\x1b]0;owned\a\x1b[2J" has control characters`},
	}, {
		name: "host paths outside the kubelet locations",
		configz: map[string]http.HandlerFunc{
			"honest-1": configzOf(kubeadmConfigz), "outside": configzOf(outside),
		},
		wantCode: 1,
		want: []string{
			"the CRI socket's directory of node outside is /var/lib/docker, which is not where kubelets keep theirs",
			"pass --allow-host-path=/var/lib/docker",
			"the static pod path of node outside is /root/.ssh,",
			"pass --allow-host-path=/root/.ssh",
		},
	}, {
		name:    "host paths the user allows",
		configz: map[string]http.HandlerFunc{"honest-1": configzOf(kubeadmConfigz), "outside": configzOf(outside)},
		args:    []string{"--allow-host-path=/root/.ssh", "--allow-host-path=/var/lib/docker", "--default-layout=honest-1"},
		want:    []string{"path: /root/.ssh", "path: /var/lib/docker"},
	}, {
		name:     "a tie tuned by a feature gate",
		configz:  map[string]http.HandlerFunc{"honest": configzOf(kubeadmConfigz), "tuned": configzOf(tuned)},
		wantCode: 1,
		want:     []string{"error: 2 layouts have 1 node each, the most, and nodes added later get one of them: say which with --default-layout=NODE"},
	}, {
		name:    "a tie settled by the user",
		configz: map[string]http.HandlerFunc{"honest": configzOf(kubeadmConfigz), "tuned": configzOf(tuned)},
		args:    []string{"--default-layout=honest", "--allowed-cidrs=0.0.0.0/0,::/0"},
		want: []string{
			"layout podsrc-agent (static pods /etc/kubernetes/manifests, CRI unix:///run/containerd/containerd.sock), kubelet v1.36, image ghcr.io/podsrc/podsrc-agent:",
			": honest and nodes added later",
			"agents answer only 0.0.0.0/0, ::/0 (--allowed-cidrs)",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kc := kubelets(t, tc.configz)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			stdout, stderr, done := startExit(ctx, append([]string{"deploy", "--print-only", "--kubeconfig", kc}, tc.args...)...)
			code := <-done
			runtime.ReadMemStats(&after)
			out := stdout.String() + stderr.String()
			if code != tc.wantCode {
				t.Fatalf("exit code %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout.String(), stderr.String())
			}
			if tc.wantCode != 0 && stdout.String() != "" {
				t.Errorf("a refused deploy printed objects:\n%s", stdout.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			// Nothing raw on the terminal, no credential anywhere.
			if strings.ContainsAny(out, "\x1b\a\u009b") {
				t.Errorf("raw terminal control in the output:\n%q", out)
			}
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("credential %q in the output:\n%s", s, out)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
				t.Errorf("deploy allocated %d MiB", alloc>>20)
			}
		})
	}
	if written.Load() >= huge {
		t.Errorf("the endless /configz was read whole (%d MiB)", written.Load()>>20)
	}
}
