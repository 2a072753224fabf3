package minorsites

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture copies the repository's site files and its agent modules' go.mod
// files into a temporary root.
func fixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	paths := []string{}
	for _, s := range Sites {
		paths = append(paths, s.Path)
	}
	modules, err := AgentModules(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modules {
		paths = append(paths, filepath.Join(ModuleDir(m), "go.mod"))
	}
	paths = append(paths, filepath.Join(ModuleDir(modules[len(modules)-1]), binaryTestFile))
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(repoRoot, p))
		if err != nil {
			t.Fatal(err)
		}
		write(t, root, p, string(data))
	}
	return root
}

func write(t *testing.T, root, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit rewrites one file of the fixture, failing when old is not in it.
func edit(t *testing.T, root, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	write(t, root, path, strings.Replace(string(data), old, new, 1))
}

// TestCheckNamesTheMissingPlaces half-registers a minor in several ways and
// expects Check to name exactly the places it is missing from.
func TestCheckNamesTheMissingPlaces(t *testing.T) {
	everyMinorSite, newestOnlySites := []string{moduleSiteName}, 0
	for _, s := range Sites {
		if s.NewestOnly {
			newestOnlySites++
		} else {
			everyMinorSite = append(everyMinorSite, s.Name)
		}
	}
	tests := []struct {
		name string
		// break half-registers a minor in the fixture.
		breakIt func(t *testing.T, root string)
		// count is how many problems Check finds: one per half-registered
		// minor, and one per place of the newest minor that names another.
		count int
		// minor starts the problem looked at, and missing are the places
		// it must name as missing.
		minor   string
		missing []string
		// present are places the problem must not name as missing.
		present []string
	}{
		{
			name: "a module directory and nothing else",
			breakIt: func(t *testing.T, root string) {
				write(t, root, "cmd/podsrc-agent/kubelet199/go.mod", "module x\n")
			},
			count:   1 + 2 + newestOnlySites,
			minor:   "kubelet v1.99 is listed in " + moduleSiteName + " but",
			missing: everyMinorSite[1:],
		},
		{
			name: "a module without its Makefile entry",
			breakIt: func(t *testing.T, root string) {
				edit(t, root, "Makefile", " cmd/podsrc-agent/kubelet134", "")
			},
			count:   1,
			minor:   "kubelet v1.34",
			missing: []string{"Makefile (AGENT_MODULES)"},
			present: []string{moduleSiteName, "pkg/kubeletsemantics (byMinor)"},
		},
		{
			name: "a kubeletminor constant without semantics",
			breakIt: func(t *testing.T, root string) {
				edit(t, root, "pkg/kubeletsemantics/semantics.go", "\tkubeletminor.V135:", "\t// kubeletminor.V135:")
			},
			count:   1,
			minor:   "kubelet v1.35",
			missing: []string{"pkg/kubeletsemantics (byMinor)"},
			present: []string{"pkg/kubeletminor (the minor's constant)", "Makefile (AGENT_MODULES)"},
		},
		{
			name: "an agent module missing from the suite and the docs",
			breakIt: func(t *testing.T, root string) {
				edit(t, root, "hack/suite/test.go", "\t\"cmd/podsrc-agent/kubelet133\": kubeletModule,\n", "")
				edit(t, root, "docs/conformance.md", "for m in 133 ", "for m in ")
			},
			count:   1,
			minor:   "kubelet v1.33",
			missing: []string{"hack/suite (moduleBudgets)", "docs/conformance.md (the loop over the agent modules)"},
			present: []string{"Makefile (AGENT_MODULES)", "pkg/kubeletminor (Supported)"},
		},
		{
			name: "the Dockerfile builds an older minor",
			breakIt: func(t *testing.T, root string) {
				write(t, root, "Dockerfile", "RUN cd cmd/podsrc-agent/kubelet133 && go build .\n")
			},
			count:   1,
			minor:   "Dockerfile (the agent image of the newest minor) names v1.33; it should name the newest minor only",
			missing: nil,
		},
		{
			name: "the newest module without the agent binary's tests",
			breakIt: func(t *testing.T, root string) {
				modules, err := AgentModules(root)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(root, ModuleDir(modules[len(modules)-1]), binaryTestFile)); err != nil {
					t.Fatal(err)
				}
			},
			count: 1,
			minor: "the newest minor's module, ",
		},
		{
			name: "an older module holds the agent binary's tests",
			breakIt: func(t *testing.T, root string) {
				write(t, root, "cmd/podsrc-agent/kubelet133/main_test.go", "package main\n")
			},
			count: 1,
			minor: "cmd/podsrc-agent/kubelet133 holds the agent binary's tests",
		},
		{
			name: "the krew manifest gives an older range",
			breakIt: func(t *testing.T, root string) {
				write(t, root, "krew/podsrc.yaml", "    It reproduces kubelets v1.33 to v1.33; kubectl podsrc deploy gives\n")
			},
			count: 1,
			minor: "krew/podsrc.yaml (the range of minors, from hack/dist) names v1.33; it should name the newest minor only",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fixture(t)
			if problems, err := Check(root); err != nil || len(problems) > 0 {
				t.Fatalf("the fixture is inconsistent before the change: %v %q", err, problems)
			}
			tt.breakIt(t, root)
			problems, err := Check(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != tt.count {
				t.Errorf("got %d problems, want %d: %q", len(problems), tt.count, problems)
			}
			i := slices.IndexFunc(problems, func(p string) bool { return strings.HasPrefix(p, tt.minor) })
			if i < 0 {
				t.Fatalf("no problem starts with %q: %q", tt.minor, problems)
			}
			p := problems[i]
			_, missing, _ := strings.Cut(p, "missing from ")
			for _, name := range tt.missing {
				if !strings.Contains(missing, name) {
					t.Errorf("problem %q does not name %s as missing", p, name)
				}
			}
			for _, name := range tt.present {
				if strings.Contains(missing, name) {
					t.Errorf("problem %q names %s as missing, where it is listed", p, name)
				}
			}
		})
	}
}
