package main

import (
	"bytes"
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
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "")

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
	if got := string(calls); got != "cluster.sh build\ncluster.sh down\ncluster.sh check-clean\n" {
		t.Errorf("the cluster script was called as\n%s", got)
	}
}

// TestStagePastItsBudget checks that a stage that ends past its budget
// fails, named, and that one that runs on is stopped at killAfter budgets.
func TestStagePastItsBudget(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		budget  time.Duration
		wantErr bool
		say     string
	}{
		// Past its budget, and well before twice the budget.
		{name: "ends late", args: []string{"sleep", "1.5"}, budget: time.Second, say: "past its budget"},
		{name: "hangs", args: []string{"sleep", "600"}, budget: 200 * time.Millisecond, wantErr: true, say: "stopping stage"},
		{name: "in time", args: []string{"true"}, budget: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &syncWriter{w: &out}
			s := stage{name: tt.name, args: tt.args, budget: budget{warm: tt.budget, cold: tt.budget}}
			r := s.run(t.Context(), w, tt.budget, killAfter*tt.budget)
			inTime := tt.say == ""
			if r.ok() != inTime || r.overBudget == inTime || (r.err != nil) != tt.wantErr {
				t.Fatalf("result ok=%v overBudget=%v err=%v, took %v", r.ok(), r.overBudget, r.err, r.took)
			}
			if tt.wantErr && r.took > time.Minute {
				t.Fatalf("a hanging stage ran %v", r.took)
			}
			summarize(w, []result{r})
			w.mu.Lock()
			text := out.String()
			w.mu.Unlock()
			if !strings.Contains(text, tt.say) {
				t.Fatalf("output lacks %q:\n%s", tt.say, text)
			}
			if inTime == strings.Contains(text, "OVER BUDGET") {
				t.Fatalf("summary:\n%s", text)
			}
		})
	}
}

// TestFirstStageDecidesCold checks that the first stage, which tells a cold
// run from a warm one, is judged by its cold budget once it runs past its
// warm one, and stopped only at twice its cold budget: a fresh clone's
// cluster build passes, a hanging one is still stopped.
func TestFirstStageDecidesCold(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		budget budget
		pass   bool
		say    string
	}{
		{name: "cold build", args: []string{"sleep", "1"}, budget: budget{warm: 100 * time.Millisecond, cold: time.Minute}, pass: true, say: "a cold run"},
		{name: "hanging build", args: []string{"sleep", "600"}, budget: budget{warm: 100 * time.Millisecond, cold: 300 * time.Millisecond}, say: "stopping stage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &syncWriter{w: &out}
			stages := []stage{
				{name: "build", args: tt.args, budget: tt.budget},
				{name: "after", args: []string{"true"}, budget: budget{warm: time.Minute, cold: time.Minute}},
			}
			start := time.Now()
			passed := runStages(t.Context(), w, stages, false)
			if took := time.Since(start); took > time.Minute {
				t.Fatalf("the stages ran %v", took)
			}
			w.mu.Lock()
			text := out.String()
			w.mu.Unlock()
			if passed != tt.pass || !strings.Contains(text, tt.say) {
				t.Fatalf("passed=%v, want %v; output lacks %q or differs:\n%s", passed, tt.pass, tt.say, text)
			}
		})
	}
}

// TestBudgetsFitTheGoal checks that make test's budgets, with every module
// the budget table knows, add up to less than the README's goals: 40
// minutes warm and 75 cold on a 2-core machine.
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
	if warm >= 40*time.Minute || cold >= 75*time.Minute {
		t.Errorf("make test's budgets add up to %v warm and %v cold; the goals are under 40m and 75m", warm, cold)
	}
}
