package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Budgets of `make test`'s stages on a 2-core machine; docs/development.md
// has the measured figures they are drawn from, and TestBudgetsFitTheGoal
// keeps their sums under its goals (40 minutes warm, 80 cold).
var (
	budgetClusterBuild = budget{warm: 2 * time.Minute, cold: 19 * time.Minute}
	budgetLint         = budget{warm: 3 * time.Minute, cold: 9 * time.Minute}
	budgetDown         = budget{warm: 1 * time.Minute, cold: 1 * time.Minute}
	budgetCheckClean   = budget{warm: 1 * time.Minute, cold: 1 * time.Minute}
)

// moduleBudget is the share of one module: compiling its tests, and running
// them (the root module's hold the cluster and end-to-end tests).
type moduleBudget struct{ compile, test budget }

// kubeletModule is the share of one kubelet minor's module: each compiles
// its own k8s.io/kubernetes, and replays its conformance traces; the newest
// minor's also holds the agent binary's tests.
var kubeletModule = moduleBudget{compile: budget{30 * time.Second, 3 * time.Minute}, test: budget{1 * time.Minute, 1 * time.Minute}}

var moduleBudgets = map[string]moduleBudget{
	".":                           {compile: budget{3 * time.Minute, 6 * time.Minute}, test: budget{16 * time.Minute, 16 * time.Minute}},
	"cmd/podsrc-agent/kubelet133": kubeletModule,
	"cmd/podsrc-agent/kubelet134": kubeletModule,
	"cmd/podsrc-agent/kubelet135": kubeletModule,
	"cmd/podsrc-agent/kubelet136": {compile: budget{1 * time.Minute, 3 * time.Minute}, test: budget{1 * time.Minute, 1 * time.Minute}},
	"cmd/podsrc-agent/kubelet137": {compile: budget{1 * time.Minute, 4 * time.Minute}, test: budget{2 * time.Minute, 2 * time.Minute}},
	// The decode every minor shares has no tests of its own (each minor's
	// module tests it), so compiling its tests builds little.
	"pkg/staticpod/internalpod": {compile: budget{30 * time.Second, 90 * time.Second}, test: budget{30 * time.Second, 30 * time.Second}},
	// test/bench/merge links the kubelet v1.36 that kubelet136 built.
	"test/bench/merge": {compile: budget{1 * time.Minute, 1 * time.Minute}, test: budget{2 * time.Minute, 2 * time.Minute}},
}

// budgetNewModule is the share of a module the table does not know yet;
// give it a line of its own once its time is measured.
var budgetNewModule = moduleBudget{compile: budget{2 * time.Minute, 4 * time.Minute}, test: budget{3 * time.Minute, 3 * time.Minute}}

// testPlan is `make test` after its Debian packages: the cluster's build,
// lint, every module's tests compiled (in parallel) and then run one binary
// at a time (they share the cluster), and the cluster torn down and checked.
// Each stage that depends on a cache is judged by its own: the cluster's
// build by the cluster's cache, lint and each module's stages by the Go
// build cache for their packages.
func testPlan(o *testOptions) []stage {
	stages := []stage{
		{name: "cluster build", args: []string{"./hack/cluster.sh", "build"}, budget: budgetClusterBuild, caches: clusterCache()},
		{name: "lint", args: []string{"make", "--no-print-directory", "lint"}, budget: budgetLint, caches: goBuildCache(o.modules, false)},
	}
	for _, m := range o.modules {
		b, ok := moduleBudgets[m]
		if !ok {
			b = budgetNewModule
		}
		// The tests build what their compile left out (the agent's
		// binary, the cluster's tools): a module's two stages share one
		// judgment, made before its compile fills the cache.
		caches := goBuildCache([]string{m}, true)
		stages = append(stages,
			stage{
				name: "compile " + m, dir: m, budget: b.compile, goTest: true, caches: caches,
				args: []string{"go", "test", "-json", "-race", "-count=1", "-run", "^$", "./..."},
			},
			stage{
				name: "go test " + m, dir: m, budget: b.test, goTest: true, caches: caches,
				args: []string{"go", "test", "-json", "-race", "-count=1", "-p", "1", "-timeout", o.timeout.String(), "./..."},
			})
	}
	if !o.keepCluster {
		stages = append(stages,
			stage{name: "cluster down", args: []string{"./hack/cluster.sh", "down"}, budget: budgetDown},
			stage{name: "cluster check-clean", args: []string{"./hack/cluster.sh", "check-clean"}, budget: budgetCheckClean},
		)
	}
	for i := range stages {
		stages[i].budget = stages[i].budget.scaled(o.budgetScale)
	}
	return stages
}

// runStages runs every stage, whatever became of the ones before, and
// prints a summary: each stage's time against its budget, the stages past
// their budgets, and every test that failed. A stage whose caches are cold
// (or every stage, with allCold) is held to its cold budget. Past its
// budget a stage is reported, and fails only when strict is set; a stage is
// stopped, and fails, only as a hang (hangLimit). It reports whether
// everything passed.
func runStages(ctx context.Context, out io.Writer, stages []stage, allCold, strict bool) bool {
	var results []result
	for _, s := range stages {
		cold, why := allCold, ""
		if s.caches != nil {
			c, w := s.caches.judge(ctx)
			cold, why = cold || c, w
		}
		if why != "" {
			fmt.Fprintf(out, "\n== %s: caches %s\n", s.name, why)
		}
		r := s.run(ctx, out, s.budget.of(cold), hangLimit(s.budget))
		r.caches = why
		results = append(results, r)
	}
	return summarize(out, results, strict)
}

// summarize prints the results and reports whether all passed.
func summarize(out io.Writer, results []result, strict bool) bool {
	fmt.Fprintf(out, "\n== summary\n%-34s %10s %10s  %s\n", "STAGE", "TOOK", "BUDGET", "RESULT")
	allOK := true
	var total time.Duration
	var failed []string
	var over []result
	for _, r := range results {
		total += r.took
		verdict := "ok"
		switch {
		case r.err != nil && len(r.failed) == 0:
			verdict = "FAIL: " + r.err.Error()
		case len(r.failed) > 0:
			verdict = fmt.Sprintf("FAIL: %d failed", len(r.failed))
		}
		if r.overBudget {
			verdict += "; over budget"
			over = append(over, r)
		}
		if !r.ok(strict) {
			allOK = false
		}
		for _, f := range r.failed.sorted() {
			failed = append(failed, r.stage.name+": "+f)
		}
		fmt.Fprintf(out, "%-34s %10v %10v  %s\n", r.stage.name, r.took.Round(time.Second), r.allowed, verdict)
	}
	fmt.Fprintf(out, "%-34s %10v\n", "total", total.Round(time.Second))
	if len(over) > 0 {
		consequence := "reported only; PODSRC_STRICT_BUDGETS=1 fails them"
		if strict {
			consequence = "they fail the run (PODSRC_STRICT_BUDGETS=1)"
		}
		fmt.Fprintf(out, "\nover budget (%s):\n%-34s %10s %10s %10s  %s\n", consequence, "STAGE", "BUDGET", "TOOK", "OVER BY", "CACHES")
		for _, r := range over {
			fmt.Fprintf(out, "%-34s %10v %10v %10v  %s\n", r.stage.name, r.allowed, r.took.Round(time.Second), (r.took - r.allowed).Round(time.Second), r.caches)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(out, "\nfailed:")
		for _, f := range failed {
			fmt.Fprintln(out, "  "+f)
		}
	}
	if allOK {
		fmt.Fprintln(out, "\nPASS")
	} else {
		fmt.Fprintln(out, "\nFAIL")
	}
	return allOK
}
