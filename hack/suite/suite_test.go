package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles writes files (path: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// enterModule makes dir, a Go module of the test's own, the working
// directory, with no workspace or flags of the caller's.
func enterModule(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")
}

// TestFailingRootModuleLetsTheOthersRun runs `suite test` on a repository
// whose root module has deliberately failing tests, with a stand-in
// cluster script and lint: the other module's tests still run and print,
// the cluster is still torn down and checked, the summary names every
// failed test, and the suite fails.
func TestFailingRootModuleLetsTheOthersRun(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/root\n\ngo 1.26\n",
		"root_test.go": `package root

import "testing"

func TestPasses(t *testing.T) {}
func TestFails(t *testing.T) { t.Fatal("deliberately") }
func TestSub(t *testing.T) {
	t.Run("leaf", func(t *testing.T) { t.Fatal("deliberately, below") })
}
`,
		"other/go.mod":        "module example.com/other\n\ngo 1.26\n",
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) { t.Log(\"the other module ran\") }\n",
		"hack/cluster.sh":     "#!/bin/sh\necho \"cluster.sh $1\" >>\"$(dirname \"$0\")/../calls.log\"\n",
		"Makefile":            "lint:\n\t@echo linted\n",
	})
	enterModule(t, dir)

	var out bytes.Buffer
	err := run(t.Context(), []string{"test", "-modules", ". other", "-timeout", "5m"}, &syncWriter{w: &out})
	if !errors.Is(err, errFailed) {
		t.Fatalf("suite test returned %v, want it to fail\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"== go test other",
		"the other module ran",
		"ok  \texample.com/other",
		"linted",
		"go test .: example.com/root TestFails\n",
		"go test .: example.com/root TestSub/leaf\n",
		"\nFAIL\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	if _, summary, _ := strings.Cut(text, "\nfailed:\n"); strings.Contains(summary, "TestSub\n") || strings.Contains(summary, "TestPasses") || strings.Contains(summary, "other") {
		t.Errorf("the summary names a test that did not fail on its own:\n%s", text)
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(calls); got != "cluster.sh built\ncluster.sh build\ncluster.sh down\ncluster.sh check-clean\n" {
		t.Errorf("the cluster script was called as\n%s", got)
	}
}

// TestStagePastItsBudget checks that a stage that ends past its budget is
// reported over budget and fails only under strict budgets, and that one
// that runs on is stopped as a hang, and fails, either way.
func TestStagePastItsBudget(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		budget   time.Duration
		over     bool
		hung     bool
		say      string
		sayLater string
	}{
		// Past its budget, and well before it is called a hang.
		{name: "ends late", args: []string{"sleep", "1.5"}, budget: time.Second, over: true, say: "past its budget", sayLater: "over budget (reported only"},
		{name: "hangs", args: []string{"sleep", "600"}, budget: 200 * time.Millisecond, over: true, hung: true, say: "stopping stage"},
		{name: "in time", args: []string{"true"}, budget: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &syncWriter{w: &out}
			s := stage{name: tt.name, args: tt.args, budget: budget{warm: tt.budget, cold: tt.budget}}
			r := s.run(t.Context(), w, tt.budget, hangAfter*tt.budget)
			if r.overBudget != tt.over || (r.err != nil) != tt.hung {
				t.Fatalf("result overBudget=%v err=%v, took %v", r.overBudget, r.err, r.took)
			}
			if r.ok(false) == tt.hung || r.ok(true) == tt.over {
				t.Errorf("ok=%v, ok under strict budgets=%v: a late stage fails only under strict budgets, a hung one always", r.ok(false), r.ok(true))
			}
			if tt.hung && r.took > time.Minute {
				t.Fatalf("a hanging stage ran %v", r.took)
			}
			passed := summarize(w, []result{r}, false)
			w.mu.Lock()
			text := out.String()
			w.mu.Unlock()
			if passed == tt.hung {
				t.Errorf("the summary says passed=%v:\n%s", passed, text)
			}
			for _, want := range []string{tt.say, tt.sayLater} {
				if !strings.Contains(text, want) {
					t.Fatalf("output lacks %q:\n%s", want, text)
				}
			}
			if tt.over != strings.Contains(text, "\nover budget") {
				t.Fatalf("summary:\n%s", text)
			}
		})
	}
}

// fixedCaches is a probe that always answers cold or warm.
func fixedCaches(cold bool) *cacheProbe {
	return &cacheProbe{check: func(context.Context) (bool, string, error) {
		if cold {
			return true, "cold: test", nil
		}
		return false, "warm: test", nil
	}}
}

// TestEachStageJudgedByItsCaches checks that each stage gets the budget its
// own caches call for: a slow stage whose caches are cold passes in its
// cold budget after a stage whose caches were warm; a slow stage whose
// caches are warm is reported over budget, and fails the run only under
// strict budgets.
func TestEachStageJudgedByItsCaches(t *testing.T) {
	slow := []string{"sleep", "0.5"}
	b := budget{warm: 100 * time.Millisecond, cold: time.Minute}
	tests := []struct {
		name   string
		stages []stage
		strict bool
		pass   bool
		over   bool
	}{
		{name: "warm cluster, cold Go", stages: []stage{
			{name: "cluster", args: []string{"true"}, budget: b, caches: fixedCaches(false)},
			{name: "compile", args: slow, budget: b, caches: fixedCaches(true)},
		}, pass: true},
		{name: "slow on warm caches", stages: []stage{
			{name: "compile", args: slow, budget: b, caches: fixedCaches(false)},
		}, pass: true, over: true},
		{name: "slow on warm caches, strict", stages: []stage{
			{name: "compile", args: slow, budget: b, caches: fixedCaches(false)},
		}, strict: true, over: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &syncWriter{w: &out}
			passed := runStages(t.Context(), w, tt.stages, false, tt.strict)
			w.mu.Lock()
			text := out.String()
			w.mu.Unlock()
			if passed != tt.pass || tt.over != strings.Contains(text, "\nover budget") {
				t.Fatalf("passed=%v, want %v; over budget listed: want %v:\n%s", passed, tt.pass, tt.over, text)
			}
		})
	}
}

// TestColdGoCacheAfterWarmClusterDoesNotFail simulates a newcomer's
// `make test` after `make demo`: the cluster's cache warm (the stand-in
// cluster script says every build is done) and the Go build cache empty.
// The real probes judge each stage; the stages themselves are stand-ins
// that run past their warm budgets and within their cold ones. The cluster
// build is held to its warm budget, and reported over it; the compile is
// judged cold from the Go build cache and passes, under strict budgets too.
func TestColdGoCacheAfterWarmClusterDoesNotFail(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":       "module example.com/root\n\ngo 1.26\n",
		"root_test.go": "package root\n\nimport \"testing\"\n\nfunc TestPasses(t *testing.T) {}\n",
		// built exits 0: the cluster's binaries are all cached.
		"hack/cluster.sh": "#!/bin/sh\nexit 0\n",
	})
	enterModule(t, dir)
	t.Setenv("GOCACHE", t.TempDir())

	slow := []string{"sleep", "0.5"}
	b := budget{warm: 100 * time.Millisecond, cold: time.Minute}
	for _, strict := range []bool{false, true} {
		stages := []stage{
			{name: "cluster build", args: slow, budget: b, caches: clusterCache()},
			{name: "compile .", args: slow, budget: b, caches: goBuildCache([]string{"."}, true)},
		}
		var out bytes.Buffer
		w := &syncWriter{w: &out}
		passed := runStages(t.Context(), w, stages, false, strict)
		w.mu.Lock()
		text := out.String()
		w.mu.Unlock()
		if passed == strict {
			t.Errorf("strict=%v: passed=%v; only the warm cluster build is over its budget:\n%s", strict, passed, text)
		}
		for _, want := range []string{
			"== cluster build: caches warm",
			"== compile .: caches cold: ",
			"packages not in the Go build cache",
			"\ncluster build ",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("strict=%v: the output lacks %q:\n%s", strict, want, text)
			}
		}
		_, overTable, _ := strings.Cut(text, "\nover budget (")
		if !strings.Contains(overTable, "cluster build") || strings.Contains(overTable, "compile .") {
			t.Errorf("strict=%v: the over-budget table should list the cluster build alone:\n%s", strict, text)
		}
	}
}

// TestBudgetsFitTheGoal checks that make test's budgets, with every module
// the budget table knows, add up to less than docs/development.md's goals: 40
// minutes warm and 80 cold on a 2-core machine.
func TestBudgetsFitTheGoal(t *testing.T) {
	o := &testOptions{budgetScale: 1}
	for m := range moduleBudgets {
		o.modules = append(o.modules, m)
	}
	var warm, cold time.Duration
	for _, s := range testPlan(o) {
		warm += s.budget.warm
		cold += s.budget.cold
	}
	if warm >= 40*time.Minute || cold >= 80*time.Minute {
		t.Errorf("make test's budgets add up to %v warm and %v cold; the goals are under 40m and 80m", warm, cold)
	}
}
