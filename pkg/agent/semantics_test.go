package agent

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// versionedDecoder is yamlDecoder following another kubelet version.
type versionedDecoder struct {
	yamlDecoder
	version string
}

func (d versionedDecoder) KubeletVersion() string { return d.version }

// TestNewRefusesAnUnsupportedKubelet checks that an agent built for a
// kubelet minor podsrc does not reproduce stops at start, naming the
// minors it does, instead of mixing minors' semantics; an agent of a
// reproduced minor reports its decoder's version.
func TestNewRefusesAnUnsupportedKubelet(t *testing.T) {
	tests := []struct {
		minor   kubeletminor.Minor
		version string
		err     string
	}{
		{minor: kubeletminor.V133, version: "v1.33.13"},
		{minor: kubeletminor.V134, version: "v1.34.4"},
		{minor: kubeletminor.V135, version: "v1.35.4"},
		{minor: kubeletminor.V136, version: "v1.36.3"},
		{minor: kubeletminor.V137, version: "v1.37.2"},
		{minor: 32, version: "v1.32.1", err: "podsrc reproduces kubelet v1.33 to v1.37 only"},
		{minor: 27, version: "v1.27.16", err: "podsrc reproduces kubelet v1.33 to v1.37 only"},
		{minor: 0, version: "v0.0.0-dev", err: "the agent's kubelet minor"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			a, err := New(sourcelessConfig(), tt.minor, versionedDecoder{version: tt.version})
			if tt.err == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if got := a.Sources().ReproducedKubeletVersion; got != tt.version {
					t.Errorf("reports kubelet %s, want %s", got, tt.version)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("New = %v; want an error containing %q", err, tt.err)
			}
		})
	}
}

// TestSemanticsForRefusesAnUnsupportedKubelet checks that no sync loop is
// chosen for a kubelet minor podsrc does not reproduce.
func TestSemanticsForRefusesAnUnsupportedKubelet(t *testing.T) {
	if _, err := semanticsFor(32, 1); err == nil {
		t.Error("the sync loop of kubelet v1.32 was chosen, want an error")
	}
}
