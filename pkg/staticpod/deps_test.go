package staticpod

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rootDir returns the root module's directory.
func rootDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestRootModuleDoesNotLinkKubernetes keeps k8s.io/kubernetes out of every
// package of the root module (the kubectl plugin among them): it needs
// replace directives and belongs to the decoder's own module.
func TestRootModuleDoesNotLinkKubernetes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "list", "-deps", "-test", "./...")
	cmd.Dir = rootDir(t)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) == 0 {
		t.Fatal("go list -deps ./... listed no package")
	}
	for _, p := range pkgs {
		if p == "k8s.io/kubernetes" || strings.HasPrefix(p, "k8s.io/kubernetes/") {
			t.Errorf("the root module depends on %s", p)
		}
	}
	t.Logf("checked %d packages", len(pkgs))
}

// TestRootGoModHasNoReplace keeps `go install ...@latest` of the root
// module's commands working: it refuses modules with replace directives.
func TestRootGoModHasNoReplace(t *testing.T) {
	path := filepath.Join(rootDir(t), "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if c := strings.Index(line, "//"); c >= 0 {
			line = line[:c]
		}
		fields := strings.Fields(strings.ReplaceAll(line, "(", " ( "))
		if len(fields) == 0 {
			continue
		}
		switch {
		case fields[0] == "replace":
			t.Errorf("%s:%d has a replace directive: %s", path, i+1, strings.TrimSpace(line))
		case fields[0] == "k8s.io/kubernetes" || (fields[0] == "require" && len(fields) > 1 && fields[1] == "k8s.io/kubernetes"):
			t.Errorf("%s:%d requires k8s.io/kubernetes", path, i+1)
		}
	}
}
