package admissiontrace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// moduleDir is the admission package of a kubelet minor's module,
// relative to the repository's root.
func moduleDir(m kubeletminor.Minor) string {
	return filepath.Join("cmd", "podsrc-agent", fmt.Sprintf("kubelet1%d", int(m)), "admission")
}

// TestEveryTraceHasAModule fails for an admission trace of a kubelet minor
// that no module replays: each minor's module replays only its own
// minor's traces, so such a trace would otherwise be replayed by none.
func TestEveryTraceHasAModule(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	for _, m := range kubeletminor.Supported {
		if _, err := os.Stat(filepath.Join(root, moduleDir(m), "conformance_test.go")); err != nil {
			t.Errorf("kubelet %s replays no admission trace: %v", m, err)
		}
	}
	counts := map[kubeletminor.Minor]int{}
	for _, f := range Load(t) {
		m, err := kubeletminor.Parse(f.Kubelet)
		if err != nil {
			t.Errorf("trace %s: %v; add the admission package of that minor or remove the trace", f.Base, err)
			continue
		}
		counts[m]++
	}
	for _, m := range kubeletminor.Supported {
		if counts[m] == 0 {
			t.Errorf("no admission trace of kubelet %s", m)
		}
	}
	t.Logf("admission traces per kubelet minor: %v", counts)
}
