package decoder

import (
	"testing"

	"k8s.io/kubernetes/pkg/kubelet/config"

	"github.com/podsrc/podsrc/internal/conformance/staticpodtrace"
)

// TestMatchesKubelet compares the decoder with kubelet v1.37's own file and
// URL sources on every scenario's manifests.
func TestMatchesKubelet(t *testing.T) {
	staticpodtrace.CompareWithKubelet(t, New(), staticpodtrace.KubeletSources{
		NewSourceFile: config.NewSourceFile,
		NewSourceURL:  config.NewSourceURL,
	})
}
