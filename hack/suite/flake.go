package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// clusterTestSuffix ends the name of every test file that uses the test
// cluster (test/e2e aside, all of whose tests do): a package with such a
// file is a cluster package. TestClusterTestFilesAreNamed keeps the names
// honest.
const clusterTestSuffix = "_cluster_test.go"

// endToEndPackage holds the end-to-end tests: neither unit nor cluster
// package, and too slow to run twenty times.
const endToEndPackage = "github.com/podsrc/podsrc/test/e2e"

// flakeOptions are the flags of `suite flake`.
type flakeOptions struct {
	modules  []string
	runs     int
	parallel int
	burners  int
	cluster  bool
	timeout  time.Duration
}

func (o *flakeOptions) addFlags(fs *flag.FlagSet) {
	fs.Func("modules", "The Go modules whose unit packages run, space-separated (the Makefile's MODULES).", func(s string) error {
		o.modules = strings.Fields(s)
		return nil
	})
	fs.IntVar(&o.runs, "runs", 20, "How many times to run the packages.")
	fs.IntVar(&o.parallel, "p", 2*runtime.NumCPU(), "go test -p: test binaries run at once (unit packages; cluster ones run one at a time, as they share the cluster).")
	fs.IntVar(&o.burners, "burners", runtime.NumCPU(), "Goroutines that keep a core busy while the tests run.")
	fs.BoolVar(&o.cluster, "cluster", false, "Run the root module's cluster packages (those with a *"+clusterTestSuffix+" file; test/e2e aside) instead of the unit packages; needs root and takes the cluster.")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "go test -timeout of each run.")
}

func (o *flakeOptions) validate() error {
	if o.runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", o.runs)
	}
	if o.parallel < 1 || o.burners < 0 {
		return fmt.Errorf("-p %d -burners %d: want -p at least 1 and -burners at least 0", o.parallel, o.burners)
	}
	if len(o.modules) == 0 && !o.cluster {
		return fmt.Errorf("-modules names no module: pass the Makefile's MODULES, as `make flake` does")
	}
	return nil
}

// flakeRun is one go test command of a run.
type flakeRun struct {
	dir  string
	args []string
	env  []string
	// what names the packages, for the log.
	what string
}

// plan returns the go test commands of one run.
func (o *flakeOptions) plan(ctx context.Context) ([]flakeRun, error) {
	if o.cluster {
		pkgs, err := clusterPackages(ctx)
		if err != nil {
			return nil, err
		}
		args := append([]string{"test", "-json", "-race", "-count=1", "-p", "1", "-timeout", o.timeout.String()}, pkgs...)
		return []flakeRun{{dir: ".", args: args, what: "cluster packages " + strings.Join(pkgs, " ")}}, nil
	}
	var runs []flakeRun
	for _, m := range o.modules {
		runs = append(runs, flakeRun{
			dir:  m,
			args: []string{"test", "-json", "-race", "-count=1", "-p", fmt.Sprint(o.parallel), "-timeout", o.timeout.String(), "./..."},
			// Cluster tests skip: these runs share the machine with
			// others, and the cluster is one.
			env:  []string{"PODSRC_TEST_CLUSTER=off"},
			what: "unit packages of " + m,
		})
	}
	return runs, nil
}

// clusterPackages lists the root module's packages that have a test file
// named *_cluster_test.go, the end-to-end ones aside.
func clusterPackages(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-f", "{{.ImportPath}} {{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the packages with *%s files: %w\n%s", clusterTestSuffix, err, stderr.Bytes())
	}
	var pkgs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] == endToEndPackage {
			continue
		}
		if slices.ContainsFunc(f[1:], func(file string) bool { return strings.HasSuffix(file, clusterTestSuffix) }) {
			pkgs = append(pkgs, f[0])
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no package has a *%s file: run from the repository root", clusterTestSuffix)
	}
	return pkgs, nil
}

// run runs the plan o.runs times while burners keep the cores busy, and
// prints each run's outcome and then the totals: runs, failed runs, and
// every failed test with how often it failed.
func (o *flakeOptions) run(ctx context.Context, out io.Writer) error {
	plan, err := o.plan(ctx)
	if err != nil {
		return err
	}
	burnCtx, stopBurning := context.WithCancel(ctx)
	defer stopBurning()
	for range o.burners {
		go burn(burnCtx)
	}
	logs, err := os.MkdirTemp("", "podsrc-flake-")
	if err != nil {
		return fmt.Errorf("making a directory for the failed runs' output: %w", err)
	}
	var what []string
	for _, r := range plan {
		what = append(what, r.what)
	}
	fmt.Fprintf(out, "flake: %d runs of the %s; go test -race, %d CPU burners on %d cores; failed runs' output in %s\n",
		o.runs, strings.Join(what, ", "), o.burners, runtime.NumCPU(), logs)

	all := failures{}
	failedRuns := 0
	start := time.Now()
	for i := 1; i <= o.runs && ctx.Err() == nil; i++ {
		runStart := time.Now()
		got := failures{}
		var output bytes.Buffer
		for _, r := range plan {
			f, err := goTestJSON(ctx, r, &output)
			if err != nil {
				return err
			}
			for name, n := range f {
				got[name] += n
			}
		}
		verdict := "ok"
		if len(got) > 0 {
			failedRuns++
			log := filepath.Join(logs, fmt.Sprintf("run-%d.log", i))
			if err := os.WriteFile(log, output.Bytes(), 0o644); err != nil {
				return fmt.Errorf("keeping the output of run %d: %w", i, err)
			}
			verdict = "FAIL " + strings.Join(got.sorted(), ", ") + " (" + log + ")"
		}
		for name, n := range got {
			all[name] += n
		}
		fmt.Fprintf(out, "run %d/%d: %v %s\n", i, o.runs, time.Since(runStart).Round(time.Second), verdict)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	fmt.Fprintf(out, "\nflake: %d runs in %v, %d failed\n", o.runs, time.Since(start).Round(time.Second), failedRuns)
	for _, name := range all.sorted() {
		fmt.Fprintf(out, "  %3d× %s\n", all[name], name)
	}
	if failedRuns > 0 {
		return errFailed
	}
	return nil
}

// goTestJSON runs one go test command of a run, writes its output to out
// and returns what failed.
func goTestJSON(ctx context.Context, r flakeRun, out io.Writer) (failures, error) {
	cmd := groupCommand(ctx, r.dir, append([]string{"go"}, r.args...), r.env)
	pr, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting go test in %s: %w", r.dir, err)
	}
	f, readErr := readTestJSON(pr, out)
	waitErr := cmd.Wait()
	if readErr != nil {
		return nil, fmt.Errorf("reading go test's output in %s: %w", r.dir, readErr)
	}
	if waitErr != nil && len(f) == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("go test in %s failed without a failed test: %w\n%s", r.dir, waitErr, stderr.Bytes())
	}
	return f, nil
}

// burn keeps one core busy until ctx ends.
func burn(ctx context.Context) {
	for n := 0; ; n++ {
		if n%(1<<20) == 0 && ctx.Err() != nil {
			return
		}
	}
}
