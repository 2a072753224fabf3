package minorsites

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// moduleSiteName names the agent modules as a place a minor is listed in.
const moduleSiteName = AgentModuleDir + "/kubelet1NN (the agent module)"

// AgentModules reads the minors that have an agent module under root
// (AgentModuleDir/kubelet1NN with a go.mod), oldest first.
func AgentModules(root string) ([]kubeletminor.Minor, error) {
	entries, err := os.ReadDir(filepath.Join(root, AgentModuleDir))
	if err != nil {
		return nil, fmt.Errorf("listing the agent modules: %w", err)
	}
	var minors []kubeletminor.Minor
	for _, e := range entries {
		m := agentModule.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, AgentModuleDir, e.Name(), "go.mod")); err != nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		minors = append(minors, kubeletminor.Minor(n))
	}
	slices.Sort(minors)
	return minors, nil
}

// Check reads every place that lists minors under root and returns one
// problem per minor that some places list and others do not (naming the
// places it is missing from), and per place of the newest minor that names
// another. No problems means every minor is registered everywhere.
func Check(root string) ([]string, error) {
	listed := map[string][]kubeletminor.Minor{}
	var names []string
	modules, err := AgentModules(root)
	if err != nil {
		return nil, err
	}
	listed[moduleSiteName] = modules
	names = append(names, moduleSiteName)
	for _, s := range Sites {
		if s.NewestOnly {
			continue
		}
		ms, err := s.Minors(root)
		if err != nil {
			return nil, err
		}
		listed[s.Name] = ms
		names = append(names, s.Name)
	}
	var all []kubeletminor.Minor
	for _, ms := range listed {
		all = append(all, ms...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) == 0 {
		return []string{"no place lists any kubelet minor"}, nil
	}
	var problems []string
	for _, m := range all {
		var in, missing []string
		for _, name := range names {
			if slices.Contains(listed[name], m) {
				in = append(in, name)
			} else {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("kubelet %s is listed in %s but missing from %s (hack/new-minor.sh registers a new minor everywhere; docs/development.md has the checklist)",
				m, strings.Join(in, ", "), strings.Join(missing, ", ")))
		}
	}
	newest := all[len(all)-1]
	problems = append(problems, binaryTestProblems(root, modules)...)
	for _, s := range Sites {
		if !s.NewestOnly {
			continue
		}
		ms, err := s.Minors(root)
		if err != nil {
			return nil, err
		}
		switch {
		case len(ms) == 0:
			problems = append(problems, fmt.Sprintf("%s names no minor; it should name the newest, %s", s.Name, newest))
		case len(ms) > 1 || ms[0] != newest:
			problems = append(problems, fmt.Sprintf("%s names %s; it should name the newest minor only, %s", s.Name, minorList(ms), newest))
		}
	}
	return problems, nil
}

// binaryTestFile marks the module holding the agent binary's own tests
// (those beside main.go): the newest minor's, which hack/new-minor.sh
// moves them from.
const binaryTestFile = "main_test.go"

// binaryTestProblems says which agent modules but the newest hold the
// agent binary's tests, and whether the newest lacks them.
func binaryTestProblems(root string, modules []kubeletminor.Minor) []string {
	if len(modules) == 0 {
		return nil
	}
	newest := ModuleDir(modules[len(modules)-1])
	var problems []string
	for _, m := range modules {
		_, err := os.Stat(filepath.Join(root, ModuleDir(m), binaryTestFile))
		switch has := err == nil; {
		case has && ModuleDir(m) != newest:
			problems = append(problems, fmt.Sprintf("%s holds the agent binary's tests (%s and the other tests beside main.go); the newest minor's module, %s, holds them: git mv them there", ModuleDir(m), binaryTestFile, newest))
		case !has && ModuleDir(m) == newest:
			problems = append(problems, fmt.Sprintf("the newest minor's module, %s, has no %s: it holds the agent binary's tests", newest, binaryTestFile))
		}
	}
	return problems
}

// minorList spells minors as versions: "v1.35, v1.36".
func minorList(ms []kubeletminor.Minor) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return strings.Join(s, ", ")
}
