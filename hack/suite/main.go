// Command suite runs podsrc's test suite the way `make test` and
// `make flake` ask, from the repository root:
//
//	go run ./hack/suite test  -modules ". pkg/staticpod/internalpod cmd/podsrc-agent/kubelet136 ..."   # every stage, each within its budget
//	go run ./hack/suite flake -modules ". ..." -runs 20                # the unit packages, again and again, under load
//	go run ./hack/suite flake -cluster -runs 20                        # the packages with *_cluster_test.go files
//
// test runs every stage whatever became of the ones before, then prints each
// stage's time against its budget, the stages past it and every test that
// failed, and exits 1 if anything failed or hung (or, with
// PODSRC_STRICT_BUDGETS=1, ran past its budget). flake prints how many runs
// failed and which tests, how often.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], &syncWriter{w: os.Stdout}); err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		os.Exit(1)
	}
}

// errFailed is returned when the suite ran and something in it failed; the
// summary has already said what.
var errFailed = fmt.Errorf("failed (see the summary above)")

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: suite test|flake [flags]")
	}
	switch args[0] {
	case "test":
		o := &testOptions{}
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		o.addFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if err := o.validate(); err != nil {
			return err
		}
		if !runStages(ctx, out, testPlan(o), o.cold, o.strict) {
			return errFailed
		}
		return nil
	case "flake":
		o := &flakeOptions{}
		fs := flag.NewFlagSet("flake", flag.ContinueOnError)
		o.addFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if err := o.validate(); err != nil {
			return err
		}
		return o.run(ctx, out)
	}
	return fmt.Errorf("unknown command %q: want test or flake", args[0])
}

// testOptions are the flags of `suite test`.
type testOptions struct {
	modules     []string
	timeout     time.Duration
	cold        bool
	keepCluster bool
	budgetScale float64
	strict      bool
}

// envStrictBudgets, set to 1, makes a stage past its budget fail the run.
const envStrictBudgets = "PODSRC_STRICT_BUDGETS"

func (o *testOptions) addFlags(fs *flag.FlagSet) {
	fs.Func("modules", "The Go modules to test, space-separated (the Makefile's MODULES).", func(s string) error {
		o.modules = strings.Fields(s)
		return nil
	})
	fs.DurationVar(&o.timeout, "timeout", 60*time.Minute, "go test -timeout for each module.")
	fs.BoolVar(&o.cold, "cold", false, "Judge every stage by its cold budget (otherwise each stage is judged by the caches it needs).")
	fs.BoolVar(&o.strict, "strict-budgets", os.Getenv(envStrictBudgets) == "1", "Fail a stage that runs past its budget (default from "+envStrictBudgets+"=1); otherwise it is only reported.")
	fs.BoolVar(&o.keepCluster, "keep-cluster", false, "Leave the test cluster up: no down and check-clean stages.")
	fs.Float64Var(&o.budgetScale, "budget-scale", 1, "Multiply every budget: they are for a 2-core machine doing nothing else; give a shared or slower one more.")
}

func (o *testOptions) validate() error {
	if o.budgetScale <= 0 {
		return fmt.Errorf("-budget-scale %v: want a positive factor", o.budgetScale)
	}
	if len(o.modules) == 0 {
		return fmt.Errorf("-modules names no module: pass the Makefile's MODULES, as `make test` does")
	}
	for _, m := range o.modules {
		if _, err := os.Stat(m + "/go.mod"); err != nil {
			return fmt.Errorf("-modules: %s is not a Go module here (run from the repository root): %w", m, err)
		}
	}
	return nil
}

// syncWriter lets a stage's output, its test output and the budget warnings
// share one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
