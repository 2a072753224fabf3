package minorsites

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

func TestRenameApply(t *testing.T) {
	r := rename{from: 36, to: 38, fromVersion: "v1.36.3", toVersion: "v1.38.1"}
	tests := []struct{ in, want string }{
		{"cmd/podsrc-agent/kubelet136/decoder", "cmd/podsrc-agent/kubelet138/decoder"},
		{"kubeletminor.V136, decoder.New()", "kubeletminor.V138, decoder.New()"},
		{"<tag>-kubelet1.36 on v1.36 nodes", "<tag>-kubelet1.38 on v1.38 nodes"},
		{`Version: "v1.36.3",`, `Version: "v1.38.1",`},
		{"k8s.io/api => k8s.io/api v0.36.3", "k8s.io/api => k8s.io/api v0.38.1"},
		// Another module's version, another minor, and a semantics name
		// spanning minors stay.
		{"google.golang.org/protobuf v1.36.12", "google.golang.org/protobuf v1.36.12"},
		{"v1.35's and kubelet135", "v1.35's and kubelet135"},
		{"merge.KubeletV133ToV136", "merge.KubeletV133ToV136"},
	}
	for _, tt := range tests {
		if got := r.apply(tt.in); got != tt.want {
			t.Errorf("apply(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// copyDir copies the repository's directory rel into root.
func copyDir(t *testing.T, root, rel string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(repoRoot, rel), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r, err := filepath.Rel(repoRoot, path)
		if err != nil {
			return err
		}
		write(t, root, r, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, root, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRegisterListsTheMinorEverywhere registers a pretend minor, linking
// the newest module's own k8s.io/kubernetes (in the module cache), and
// expects Check to find it everywhere, and its module to be the newest's
// with the minor renamed.
func TestRegisterListsTheMinorEverywhere(t *testing.T) {
	root := fixture(t)
	modules, err := AgentModules(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	newest := modules[len(modules)-1]
	copyDir(t, root, ModuleDir(newest))
	version, err := linkedVersion(root, newest)
	if err != nil {
		t.Fatal(err)
	}
	pretend := kubeletminor.Minor(99)
	g := Registration{Root: root, Minor: pretend, Version: version}
	if err := g.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	problems, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if modules, err := AgentModules(root); err != nil || modules[len(modules)-1] != pretend {
		t.Errorf("agent modules after Register: %v %v, want %s the newest", modules, err, pretend)
	}

	dir := ModuleDir(pretend)
	for path, want := range map[string][]string{
		filepath.Join(dir, "main.go"): {"kubeletminor.V199", dir + "/decoder"},
		filepath.Join(dir, "go.mod"): {
			"module github.com/podsrc/podsrc/" + dir + "\n",
			"k8s.io/kubernetes " + version + "\n",
			"k8s.io/client-go => k8s.io/client-go " + stagingVersion(version) + "\n",
		},
		"pkg/kubeletsemantics/semantics.go": {"\tkubeletminor.V199: {"},
		"pkg/kubeletminor/minor.go":         {"\tV199 Minor = 99\n", ", V199}"},
		"hack/suite/test.go":                {"\t\"" + ModuleDir(newest) + "\": kubeletModule,\n"},
		"Dockerfile":                        {dir + "/go.mod"},
	} {
		got := readFile(t, root, path)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s has no %q after Register", path, w)
			}
		}
	}
	// The agent binary's tests move to the newest module.
	if _, err := os.Stat(filepath.Join(root, ModuleDir(newest), "main_test.go")); !os.IsNotExist(err) {
		t.Errorf("%s/main_test.go stayed (%v); the newest module holds the agent binary's tests", ModuleDir(newest), err)
	}
	if _, err := os.Stat(filepath.Join(root, dir, "main_test.go")); err != nil {
		t.Errorf("the new module has no main_test.go: %v", err)
	}

	// A second run refuses: the minor is no longer newer than the newest.
	if err := g.Register(context.Background()); err == nil {
		t.Error("registering the same minor twice succeeded")
	}
}
