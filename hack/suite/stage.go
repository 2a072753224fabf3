package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// budget is a stage's share of the suite's time: on a machine whose caches
// are warm, and on one that builds everything from nothing.
type budget struct{ warm, cold time.Duration }

func (b budget) of(cold bool) time.Duration {
	if cold {
		return b.cold
	}
	return b.warm
}

// scaled returns the budget times f.
func (b budget) scaled(f float64) budget {
	return budget{warm: time.Duration(float64(b.warm) * f), cold: time.Duration(float64(b.cold) * f)}
}

// stage is one step of the suite: a command run in a directory.
type stage struct {
	name   string
	dir    string
	args   []string
	env    []string
	budget budget
	// goTest marks a `go test -json` command, whose output is read for
	// the tests that failed.
	goTest bool
	// caches tells, before the stage runs, whether the caches it needs are
	// cold; nil for a stage whose budget does not depend on them.
	caches *cacheProbe
}

// result is how a stage went.
type result struct {
	stage   stage
	took    time.Duration
	allowed time.Duration
	// caches says how the stage's caches were judged ("warm", or "cold"
	// and why); empty for a stage that needs none.
	caches string
	err    error
	// overBudget is set when the stage ran past its budget.
	overBudget bool
	failed     failures
}

// Past its budget a stage is only reported (and fails under strict
// budgets); past hangAfter cold budgets it is a hang: it is stopped, and
// fails, and the rest of the suite still runs. A hang is called no sooner
// than hangFloor and no later than hangCap, well inside CI's 90 minutes.
const (
	hangAfter = 4
	hangFloor = time.Minute
	hangCap   = 45 * time.Minute
)

// hangLimit is when a stage of budget b is stopped as hung.
func hangLimit(b budget) time.Duration {
	return min(max(hangAfter*b.cold, hangFloor), hangCap)
}

// run runs the stage, printing its output to out, and reports how it went.
// A stage past allowed is announced while it runs and marked over budget
// when it ends; it is stopped (its whole process group) at stopAt.
func (s stage) run(ctx context.Context, out io.Writer, allowed, stopAt time.Duration) result {
	res := result{stage: s, allowed: allowed, failed: failures{}}
	fmt.Fprintf(out, "\n== %s (budget %v)\n", s.name, allowed)
	cmd := groupCommand(ctx, s.dir, s.args, s.env)
	cmd.Stderr = out

	var readDone chan struct{}
	if s.goTest {
		pr, err := cmd.StdoutPipe()
		if err != nil {
			res.err = err
			return res
		}
		readDone = make(chan struct{})
		go func() {
			defer close(readDone)
			f, err := readTestJSON(pr, out)
			if err != nil {
				fmt.Fprintf(out, "reading the output of %s: %v\n", s.name, err)
			}
			res.failed = f
		}()
	} else {
		cmd.Stdout = out
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.err = fmt.Errorf("starting %s: %w", s.name, err)
		return res
	}
	warn := time.AfterFunc(allowed, func() {
		fmt.Fprintf(out, "\n!! stage %q is past its budget of %v and still running; it is stopped as hung at %v\n", s.name, allowed, stopAt)
	})
	kill := time.AfterFunc(stopAt, func() {
		fmt.Fprintf(out, "\n!! stopping stage %q after %v: a hang\n", s.name, stopAt)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	if readDone != nil {
		<-readDone
	}
	res.err = cmd.Wait()
	warn.Stop()
	kill.Stop()
	res.took = time.Since(start)
	if res.took > allowed {
		res.overBudget = true
	}
	var exit *exec.ExitError
	if res.err != nil && !errors.As(res.err, &exit) {
		res.err = fmt.Errorf("running %s: %w", s.name, res.err)
	}
	return res
}

// groupCommand returns a command in a process group of its own, so that
// stopping it (ctx ending, or a budget run out) reaches the test binaries
// and servers it started, and only those.
func groupCommand(ctx context.Context, dir string, args, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// ok reports whether the stage passed; under strict budgets, also in time.
func (r result) ok(strict bool) bool {
	return r.err == nil && len(r.failed) == 0 && (!strict || !r.overBudget)
}
