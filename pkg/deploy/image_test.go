package deploy

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

func TestImageFor(t *testing.T) {
	tests := []struct {
		base  string
		minor kubeletminor.Minor
		want  string
		err   string
	}{
		{base: "ghcr.io/podsrc/podsrc-agent:v0.3.0", minor: kubeletminor.V134, want: "ghcr.io/podsrc/podsrc-agent:v0.3.0-kubelet1.34"},
		{base: "ghcr.io/podsrc/podsrc-agent:v0.3.0", minor: kubeletminor.V136, want: "ghcr.io/podsrc/podsrc-agent:v0.3.0-kubelet1.36"},
		{base: "ghcr.io/podsrc/podsrc-agent:v0.3.0", minor: kubeletminor.V137, want: "ghcr.io/podsrc/podsrc-agent:v0.3.0-kubelet1.37"},
		{base: "registry.example:5000/podsrc-agent:dev", minor: kubeletminor.V133, want: "registry.example:5000/podsrc-agent:dev-kubelet1.33"},
		{base: "registry.example:5000/podsrc-agent", minor: kubeletminor.V135, want: "registry.example:5000/podsrc-agent:kubelet1.35"},
		{base: "podsrc-agent", minor: kubeletminor.V135, want: "podsrc-agent:kubelet1.35"},
		{base: "registry.example/podsrc-agent@sha256:0123", minor: kubeletminor.V136, err: "pinned by digest"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			got, err := ImageFor(tt.base, tt.minor)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ImageFor(%q) = %q, %v; want an error containing %q", tt.base, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ImageFor(%q, %v) = %q, %v; want %q", tt.base, tt.minor, got, err, tt.want)
			}
		})
	}
}
