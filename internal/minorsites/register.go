package minorsites

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Registration is a new kubelet minor to add to the repository at Root.
type Registration struct {
	// Root is the repository's root directory.
	Root string
	// Minor is the new minor; it must be newer than every agent module's.
	Minor kubeletminor.Minor
	// Version is the k8s.io/kubernetes version its module links, such as
	// v1.37.2.
	Version string
	// Tidy runs go mod tidy in the new module (which downloads the new
	// minor's dependencies).
	Tidy bool
}

// Register writes the new minor's agent module from the newest one's and
// lists the minor in every site, so that Check finds nothing missing. What
// it cannot do (the new kubelet's API changes, its traces, the docs' prose)
// is docs/development.md's checklist.
func (g Registration) Register(ctx context.Context) error {
	modules, err := AgentModules(g.Root)
	if err != nil {
		return err
	}
	if len(modules) == 0 {
		return fmt.Errorf("no agent module under %s to copy", filepath.Join(g.Root, AgentModuleDir))
	}
	newest := modules[len(modules)-1]
	if g.Minor <= newest {
		return fmt.Errorf("kubelet %s is not newer than the newest agent module's, %s", g.Minor, newest)
	}
	// A pretend minor may link another minor's release, for a trial; it
	// must be a release.
	if !release.MatchString(g.Version) {
		return fmt.Errorf("k8s.io/kubernetes version %q is not a release such as %s.0", g.Version, g.Minor)
	}
	if problems, err := Check(g.Root); err != nil {
		return err
	} else if len(problems) > 0 {
		return fmt.Errorf("the minors are not registered consistently; fix this first:\n  %s", strings.Join(problems, "\n  "))
	}
	fromVersion, err := linkedVersion(g.Root, newest)
	if err != nil {
		return err
	}
	r := rename{from: newest, to: g.Minor, fromVersion: fromVersion, toVersion: g.Version}
	if err := writeModule(ctx, g.Root, r); err != nil {
		return err
	}
	for _, s := range Sites {
		path := filepath.Join(g.Root, s.Path)
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("registering kubelet %s in %s: %w", g.Minor, s.Name, err)
		}
		if data, err = s.add(data, r); err != nil {
			return fmt.Errorf("registering kubelet %s: %w", g.Minor, err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("registering kubelet %s in %s: %w", g.Minor, s.Name, err)
		}
	}
	if g.Tidy {
		if _, err := goCommand(ctx, filepath.Join(g.Root, ModuleDir(g.Minor)), "mod", "tidy"); err != nil {
			return fmt.Errorf("tidying %s: %w", ModuleDir(g.Minor), err)
		}
	}
	return nil
}
