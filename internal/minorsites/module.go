package minorsites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// kubernetesModule is the module every agent module links its minor of.
const kubernetesModule = "k8s.io/kubernetes"

// ModuleDir is the agent module of minor m, relative to the repository's
// root, such as cmd/podsrc-agent/kubelet136.
func ModuleDir(m kubeletminor.Minor) string {
	return path.Join(AgentModuleDir, fmt.Sprintf("kubelet1%d", int(m)))
}

// linkedVersion reads the k8s.io/kubernetes version the agent module of m
// requires.
func linkedVersion(root string, m kubeletminor.Minor) (string, error) {
	path := filepath.Join(root, ModuleDir(m), "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the kubelet version of %s: %w", ModuleDir(m), err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return "", fmt.Errorf("reading the kubelet version of %s: %w", ModuleDir(m), err)
	}
	for _, req := range f.Require {
		if req.Mod.Path == kubernetesModule {
			return req.Mod.Version, nil
		}
	}
	return "", fmt.Errorf("%s requires no %s", path, kubernetesModule)
}

// isBinaryTest reports whether rel, a file of the newest module, is a test
// of the agent binary itself (a _test.go file beside main.go): the newest
// module alone holds those, so they move to the new one.
func isBinaryTest(rel string) bool {
	return filepath.Dir(rel) == "." && strings.HasSuffix(rel, "_test.go")
}

// writeModule writes the agent module of r.to from the newest one's (r.from):
// its main, decoder and admission glue with the minor renamed, and its
// go.mod requiring k8s.io/kubernetes r.toVersion with the staging modules
// replaced at the matching v0 version. The agent binary's tests move.
func writeModule(ctx context.Context, root string, r rename) error {
	src, dst := filepath.Join(root, ModuleDir(r.from)), filepath.Join(root, ModuleDir(r.to))
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s exists already", ModuleDir(r.to))
	}
	staging, err := stagingModules(ctx, root, r.toVersion)
	if err != nil {
		return err
	}
	var moved []string
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case rel == "go.mod":
			data, err = newGoMod(path, data, r, staging)
			if err != nil {
				return err
			}
		case strings.HasSuffix(rel, ".go"):
			data = []byte(r.apply(string(data)))
		}
		if isBinaryTest(rel) {
			moved = append(moved, path)
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("writing %s from %s: %w", ModuleDir(r.to), ModuleDir(r.from), err)
	}
	for _, path := range moved {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("moving the agent binary's tests to %s: %w", ModuleDir(r.to), err)
		}
	}
	return nil
}

// newGoMod is the new module's go.mod from the newest one's: its path, its
// k8s.io/kubernetes and staging requirements, and the staging replaces
// (the modules staging lists, at its v0 version), with the comments'
// mentions of the minor renamed. go mod tidy settles the rest.
func newGoMod(path string, data []byte, r rename, staging []string) ([]byte, error) {
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	if err := f.AddModuleStmt(r.apply(f.Module.Mod.Path)); err != nil {
		return nil, err
	}
	oldStaging, newStaging := stagingVersion(r.fromVersion), stagingVersion(r.toVersion)
	for _, req := range f.Require {
		switch {
		case req.Mod.Path == kubernetesModule:
			err = f.AddRequire(kubernetesModule, r.toVersion)
		case req.Mod.Version == oldStaging && strings.HasPrefix(req.Mod.Path, "k8s.io/"):
			err = f.AddRequire(req.Mod.Path, newStaging)
		}
		if err != nil {
			return nil, err
		}
	}
	var gone []string
	for _, rep := range f.Replace {
		if rep.New.Version == oldStaging && strings.HasPrefix(rep.Old.Path, "k8s.io/") && !slices.Contains(staging, rep.Old.Path) {
			gone = append(gone, rep.Old.Path)
		}
	}
	for _, m := range gone {
		if err := f.DropReplace(m, ""); err != nil {
			return nil, err
		}
	}
	for _, m := range staging {
		if err := f.AddReplace(m, "", m, newStaging); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(out), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines[i] = r.apply(l)
		}
	}
	return []byte(strings.Join(lines, "")), nil
}

// stagingModules lists the staging modules k8s.io/kubernetes version v
// replaces by its own directories: a module requiring it must replace
// each at the published v0 version.
func stagingModules(ctx context.Context, root, v string) ([]string, error) {
	out, err := goCommand(ctx, root, "mod", "download", "-json", kubernetesModule+"@"+v)
	if err != nil {
		return nil, fmt.Errorf("downloading %s@%s: %w", kubernetesModule, v, err)
	}
	var info struct{ GoMod string }
	if err := json.Unmarshal(out, &info); err != nil || info.GoMod == "" {
		return nil, fmt.Errorf("downloading %s@%s: no go.mod in %q", kubernetesModule, v, out)
	}
	data, err := os.ReadFile(info.GoMod)
	if err != nil {
		return nil, fmt.Errorf("reading %s@%s's go.mod: %w", kubernetesModule, v, err)
	}
	f, err := modfile.Parse(info.GoMod, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing %s@%s's go.mod: %w", kubernetesModule, v, err)
	}
	var mods []string
	for _, rep := range f.Replace {
		if strings.HasPrefix(rep.New.Path, "./staging/") {
			mods = append(mods, rep.Old.Path)
		}
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s@%s's go.mod replaces no staging module", kubernetesModule, v)
	}
	return mods, nil
}

// goCommand runs the go command in dir and returns its standard output,
// or an error holding its standard error.
func goCommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
