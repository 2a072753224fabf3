package agent

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/source"
)

// nodeSource stands in for the API server source's state: it has read the
// node's Node object, whose kubelet version is kubelet.
type nodeSource struct{ kubelet string }

func (nodeSource) Run(ctx context.Context) { <-ctx.Done() }

func (s nodeSource) Status() source.Status {
	return source.Status{Source: v1alpha1.SourceAPI, NodeKubeletVersion: s.kubelet}
}

// TestSkewedAgentReportsItself runs an agent reproducing kubelet v1.36.3
// on nodes of several kubelets: on a node of another minor, /sources names
// both versions and says what to run, /version carries the node's kubelet,
// and /readyz is not ready with the same message; on a v1.36 node, or when
// the node's kubelet is unknown, nothing is reported and it is ready.
func TestSkewedAgentReportsItself(t *testing.T) {
	tests := []struct {
		name, kubelet string
		skew          []string
	}{
		{name: "same minor", kubelet: "v1.36.0"},
		{name: "unknown kubelet"},
		{name: "older minor", kubelet: "v1.34.4", skew: []string{"the node runs kubelet v1.34.4 but this agent reproduces kubelet v1.36.3", "run kubectl podsrc deploy"}},
		{name: "unsupported minor", kubelet: "v1.31.2-eks-1", skew: []string{"the node runs kubelet v1.31.2-eks-1", "podsrc reproduces kubelet v1.33 to v1.37 only"}},
		{name: "unreadable version", kubelet: "unknown", skew: []string{`the node's kubelet version "unknown" cannot be read`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := startAgentWith(t, nil, []namedSource{{name: v1alpha1.SourceAPI, src: nodeSource{kubelet: tt.kubelet}}})
			var sources v1alpha1.SourceList
			ta.getJSON(t, "/api/v1alpha1/sources", &sources)
			var version v1alpha1.Version
			ta.getJSON(t, "/version", &version)
			code, body := ta.get(t, "/readyz")
			if sources.NodeKubeletVersion != tt.kubelet || version.NodeKubeletVersion != tt.kubelet {
				t.Errorf("node kubelet %q in /sources, %q in /version; want %q", sources.NodeKubeletVersion, version.NodeKubeletVersion, tt.kubelet)
			}
			if tt.skew == nil {
				if sources.KubeletSkew != "" || code != http.StatusOK {
					t.Fatalf("skew %q, readyz %d %q; want none, ready", sources.KubeletSkew, code, body)
				}
				return
			}
			if code != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != sources.KubeletSkew {
				t.Errorf("readyz %d %q; want 503 with /sources' kubeletSkew %q", code, body, sources.KubeletSkew)
			}
			for _, want := range tt.skew {
				if !strings.Contains(sources.KubeletSkew, want) {
					t.Errorf("kubeletSkew %q; want it to contain %q", sources.KubeletSkew, want)
				}
			}
		})
	}
}
