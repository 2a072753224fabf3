package agent

import (
	"strings"
	"testing"
)

// versionedDecoder is yamlDecoder following another kubelet version.
type versionedDecoder struct {
	yamlDecoder
	version string
}

func (d versionedDecoder) KubeletVersion() string { return d.version }

// TestNewRefusesAnUnsupportedKubelet checks that an agent built with the
// decoder of a kubelet minor podsrc does not reproduce stops at start,
// naming the minors it does, instead of mixing minors' semantics.
func TestNewRefusesAnUnsupportedKubelet(t *testing.T) {
	tests := []struct {
		version string
		err     string
	}{
		{version: "v1.33.13"},
		{version: "v1.34.4"},
		{version: "v1.35.4"},
		{version: "v1.36.3"},
		{version: "v1.32.1", err: "podsrc reproduces kubelet v1.33 to v1.36 only"},
		{version: "v1.27.16", err: "podsrc reproduces kubelet v1.33 to v1.36 only"},
		{version: "v0.0.0-dev", err: "the static pod decoder's kubelet"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			a, err := New(sourcelessConfig(), versionedDecoder{version: tt.version})
			if tt.err == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if got := a.Sources().KubeletVersion; got != tt.version {
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
