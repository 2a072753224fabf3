package minorsites

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scratchEnv runs TestNewMinorInAScratchCopy: it builds the whole root
// module in a copy of the repository, several minutes on a loaded machine.
const scratchEnv = "PODSRC_TEST_NEWMINOR"

// run runs a command in dir and fails the test with its output when it
// fails.
func run(t *testing.T, ctx context.Context, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out.String())
	}
	return out.String()
}

// TestNewMinorInAScratchCopy runs hack/new-minor.sh for a pretend minor,
// one newer than the newest, in a copy of the repository (its tracked and
// new files), linking the newest module's own k8s.io/kubernetes (a release
// of the pretend minor does not exist), and expects a tree whose root
// module builds, whose new agent module builds, which is gofmt clean and
// whose consistency test passes.
func TestNewMinorInAScratchCopy(t *testing.T) {
	if os.Getenv(scratchEnv) != "1" {
		t.Skipf("builds the root module in a scratch copy; run with %s=1", scratchEnv)
	}
	ctx := t.Context()
	src, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := run(t, ctx, src, nil, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, f := range strings.Split(strings.TrimSuffix(files, "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(src, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}

	modules, err := AgentModules(root)
	if err != nil {
		t.Fatal(err)
	}
	newest := modules[len(modules)-1]
	version, err := linkedVersion(root, newest)
	if err != nil {
		t.Fatal(err)
	}
	pretend := newest + 1
	t.Logf("hack/new-minor.sh 1.%d --version %s", int(pretend), version)
	t.Log(run(t, ctx, root, nil, filepath.Join(root, "hack", "new-minor.sh"), fmt.Sprintf("1.%d", int(pretend)), "--version", version))

	if out := run(t, ctx, root, nil, "gofmt", "-l", "."); out != "" {
		t.Errorf("gofmt -l after new-minor.sh:\n%s", out)
	}
	run(t, ctx, root, nil, "go", "build", "./...")
	run(t, ctx, filepath.Join(root, ModuleDir(pretend)), nil, "go", "build", "./...")
	// The consistency test of the scratch copy, not this one again.
	// (pkg/kubeletminor's and pkg/kubeletsemantics's tests name the
	// minors, and fail until a person states the new one's semantics:
	// docs/development.md's checklist.)
	t.Log(run(t, ctx, root, []string{scratchEnv + "=0", "PODSRC_TEST_CLUSTER=off"}, "go", "test", "./internal/minorsites/"))
}
