package minorsites

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
)

// repoRoot is the repository's root, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// TestEveryMinorIsRegisteredEverywhere fails, naming the places, when a
// kubelet minor is listed in some of the repository's places and not in
// others (hack/new-minor.sh registers one everywhere).
func TestEveryMinorIsRegisteredEverywhere(t *testing.T) {
	problems, err := Check(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTheCompiledMinorsAreTheModules checks the compiled tables, not only
// their text: pkg/kubeletminor reproduces exactly the minors that have an
// agent module, and pkg/kubeletsemantics has semantics for each.
func TestTheCompiledMinorsAreTheModules(t *testing.T) {
	modules, err := AgentModules(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kubeletminor.Supported, modules) {
		t.Errorf("kubeletminor.Supported is %v, the agent modules under %s are of %v", kubeletminor.Supported, AgentModuleDir, modules)
	}
	for _, m := range modules {
		if _, err := kubeletsemantics.Of(m); err != nil {
			t.Errorf("agent module of kubelet %s: kubeletsemantics.Of: %v", m, err)
		}
	}
}
