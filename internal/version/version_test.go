package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/podsrc/podsrc", Version: v}}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name     string
		injected string
		read     func() (*debug.BuildInfo, bool)
		want     string
	}{
		{"injected wins over the build information", "v0.2.0", info("v0.1.0"), "v0.2.0"},
		{"injected commit of make build", "334cf98-dirty", info("(devel)"), "334cf98-dirty"},
		{"go install of a release", Dev, info("v0.1.0"), "v0.1.0"},
		{"go install of a commit", Dev, info("v0.1.1-0.20261123211334-334cf98abcde"), "v0.1.1-0.20261123211334-334cf98abcde"},
		{"go run or go test", Dev, info("(devel)"), Dev},
		{"no version recorded", Dev, info(""), Dev},
		{"no build information", Dev, none, Dev},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.injected, tt.read); got != tt.want {
				t.Fatalf("resolve(%q) = %q, want %q", tt.injected, got, tt.want)
			}
		})
	}
}
