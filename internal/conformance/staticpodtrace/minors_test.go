package staticpodtrace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// moduleDir is the module of a kubelet minor, which holds its decoder,
// relative to the repository's root.
func moduleDir(m kubeletminor.Minor) string {
	return filepath.Join("cmd", "podsrc-agent", fmt.Sprintf("kubelet1%d", int(m)))
}

// TestEveryTraceHasADecoder fails for a staticpod trace of a kubelet minor
// that no decoder module implements: each module replays only its own
// minor's traces, so such a trace would otherwise be replayed by none.
func TestEveryTraceHasADecoder(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	for _, m := range kubeletminor.Supported {
		if _, err := os.Stat(filepath.Join(root, moduleDir(m), "decoder", "decoder.go")); err != nil {
			t.Errorf("kubelet %s has no decoder module: %v", m, err)
		}
	}
	counts := map[kubeletminor.Minor]int{}
	for _, tr := range Load(t) {
		m, err := kubeletminor.Parse(tr.Kubelet)
		if err != nil {
			t.Errorf("trace %s: %v; add a decoder module for it (%s) or remove the trace", tr.Name, err, moduleDir(mustOf(tr.Kubelet)))
			continue
		}
		counts[m]++
	}
	t.Logf("staticpod traces per kubelet minor: %v", counts)
}

func mustOf(version string) kubeletminor.Minor {
	m, _ := kubeletminor.Of(version)
	return m
}
