package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/test/cluster"
)

// whyNS is the namespace of TestWhy's pods, static and API.
const whyNS = "podsrc-e2e-why"

// Exit statuses of kubectl podsrc why.
const (
	whyExitOK      = 0
	whyExitFailing = 2
)

// TestWhy deploys the agent once, makes every case of whyCases at once (one
// pod per class of failure kubectl podsrc why explains, and healthy ones),
// then, case by case, awaits the facts that make the case and runs the
// plugin's why on its target: the report must name the stage that fails,
// its verdict and what it says, and the exit status must match. Then the
// kubelet's admission: pods it rejects, whose verdict podsrc must give in
// the kubelet's words (testAdmission).
func TestWhy(t *testing.T) {
	c := cluster.Get(t)
	root := repoRoot(t)
	e := &env{c: c, root: root}
	e.plugin = buildPlugin(t, root)
	deploy(t, c, root, e.plugin)
	e.follow(t)
	createWhyNamespace(t, e, whyNS)
	t.Cleanup(func() {
		if t.Failed() {
			e.agentLogs(t)
		}
	})

	// Everything is made first, so that the cases' waits (a crash loop's
	// back-off, a namespace's deletion) overlap.
	awaits := make([]func(t *testing.T), len(whyCases))
	targets := make([]string, len(whyCases))
	for i, wc := range whyCases {
		targets[i], awaits[i] = wc.arrange(t, e)
	}
	for i, wc := range whyCases {
		t.Run(wc.name, func(t *testing.T) {
			awaits[i](t)
			r, status, stderr := e.whySettled(t, targets[i], wc.want)
			wc.want.check(t, r, status)
			e.checkChecklist(t, targets[i], wc.want)
			if t.Failed() {
				t.Logf("kubectl podsrc why %s %s: exit %d, stderr:\n%s\nreport:\n%s", c.NodeName, targets[i], status, stderr, jsonIndent(r))
				e.logFacts(t, targets[i])
			}
		})
	}
	t.Run("--all", func(t *testing.T) { e.checkWhyAll(t, targets) })
	t.Run("admission", func(t *testing.T) { testAdmission(t, e) })
}

// checkWhyAll runs why --all -o json: every case that fails on the node
// (not the unscheduled pod, nor the one gone with its namespace) is listed
// with its stage, no healthy one is, and the exit status is 2.
func (e *env) checkWhyAll(t *testing.T, targets []string) {
	var stdout, stderr string
	var status int
	e.pollFor(t, "why --all with the API server up", pollTimeout, func(context.Context) (bool, string, error) {
		stdout, status, stderr = e.runWhy(t, "--all", "-o", "json")
		return status != 1, stderr, nil
	})
	var l struct {
		Items []v1alpha1.WhyReport `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &l); err != nil {
		t.Fatalf("why --all -o json printed no list (exit %d): %v\n%s%s", status, err, stdout, stderr)
	}
	if status != whyExitFailing {
		t.Errorf("why --all: exit status %d, want %d", status, whyExitFailing)
	}
	listed := map[string]string{}
	for _, r := range l.Items {
		listed[r.Pod.Origin] = r.Stage
		listed[r.Pod.Namespace+"/"+r.Pod.Name] = r.Stage
	}
	for i, wc := range whyCases {
		want := wc.want.stage
		if want == v1alpha1.StageBinding {
			continue
		}
		if got, ok := listed[targets[i]]; got != want || (want == "" && ok) {
			t.Errorf("why --all lists %s (case %s) at stage %q (listed: %v), want %q", targets[i], wc.name, got, ok, want)
		}
	}
	if t.Failed() {
		t.Logf("why --all -o json:\n%s", stdout)
	}
}

// whyWant is what kubectl podsrc why must say of a case.
type whyWant struct {
	// verdict and stage are the report's; stage is "" for a healthy pod.
	verdict, stage string
	// says are substrings of the stage's message and evidence.
	says []string
	exit int
}

func (w whyWant) check(t *testing.T, r *v1alpha1.WhyReport, status int) {
	t.Helper()
	if status != w.exit {
		t.Errorf("exit status %d, want %d", status, w.exit)
	}
	if r == nil {
		t.Errorf("no report")
		return
	}
	if r.Verdict != w.verdict || r.Stage != w.stage {
		t.Errorf("verdict %q at stage %q, want %q at %q", r.Verdict, r.Stage, w.verdict, w.stage)
	}
	if w.stage == "" {
		for _, s := range r.Stages {
			if s.Verdict != v1alpha1.VerdictOK {
				t.Errorf("stage %s is %s (%s), want every stage ok", s.Name, s.Verdict, s.Message)
			}
		}
		return
	}
	var stage *v1alpha1.WhyStage
	for i := range r.Stages {
		if r.Stages[i].Name == w.stage {
			stage = &r.Stages[i]
		}
	}
	if stage == nil {
		t.Errorf("no stage %q in the report", w.stage)
		return
	}
	if stage.Verdict != w.verdict {
		t.Errorf("stage %s is %s, want %s", stage.Name, stage.Verdict, w.verdict)
	}
	text := stage.Message + "\n" + strings.Join(stage.Evidence, "\n")
	for _, s := range w.says {
		if !strings.Contains(text, s) {
			t.Errorf("stage %s does not say %q; it says:\n%s", stage.Name, s, text)
		}
	}
	if r.Suggestion == "" {
		t.Errorf("no suggested fix for the failing stage %s", stage.Name)
	}
}

// checkChecklist runs why's human checklist on target: the same exit
// status, and the failing stage on a line of its own with its verdict.
func (e *env) checkChecklist(t *testing.T, target string, w whyWant) {
	t.Helper()
	var out, stderr string
	var status int
	e.pollFor(t, "the checklist of "+target+" with the API server up", pollTimeout, func(context.Context) (bool, string, error) {
		// 1 is the command failing, here only for want of the
		// API server, restarting.
		out, status, stderr = e.runWhy(t, target)
		return status != 1, stderr, nil
	})
	t.Logf("kubectl podsrc why %s %s (exit %d):\n%s%s", e.c.NodeName, target, status, out, stderr)
	if status != w.exit {
		t.Errorf("the checklist's exit status is %d, want %d", status, w.exit)
	}
	if w.stage == "" {
		return
	}
	if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool {
		f := strings.Fields(l)
		return len(f) >= 2 && strings.HasSuffix(f[0], w.stage) && strings.HasPrefix(f[1], w.verdict)
	}) || !strings.Contains(out, "SUGGESTED FIX") {
		t.Errorf("the checklist has no line of stage %s %s, or no suggested fix", w.stage, w.verdict)
	}
}

// runWhy runs kubectl-podsrc why NODE TARGET args... and returns its
// stdout, exit status and stderr.
func (e *env) runWhy(t *testing.T, target string, args ...string) (string, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.plugin, append([]string{"why", e.c.NodeName, target, "--kubeconfig=" + e.c.Kubeconfig}, args...)...)
	cmd.Env = os.Environ()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	status := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatalf("running kubectl-podsrc why %s: %v\n%s", target, err, stderr.String())
	}
	return stdout.String(), status, stderr.String()
}

// whySettled runs why on target with -o json until it prints a report
// that does not blame the agent's API source, unless w expects that stage:
// while the shared cluster's API server restarts (other tests make it do
// so) the plugin cannot reach the agent, and the API source rightly fails.
func (e *env) whySettled(t *testing.T, target string, w whyWant) (r *v1alpha1.WhyReport, status int, stderr string) {
	t.Helper()
	e.pollFor(t, "a report of "+target+" with the API server and the agent's API source up", pollTimeout, func(context.Context) (bool, string, error) {
		var err error
		r, status, stderr, err = e.why(t, target, "-o", "json")
		if err != nil {
			return false, "", err
		}
		for _, s := range r.Stages {
			if s.Name == v1alpha1.StageAPISource && s.Verdict == v1alpha1.VerdictFailing && w.stage != v1alpha1.StageAPISource {
				return false, s.Message, nil
			}
		}
		return true, "", nil
	})
	return r, status, stderr
}

// why runs kubectl-podsrc why NODE TARGET args... and returns the report,
// the exit status and stderr; an error when stdout is not a report.
func (e *env) why(t *testing.T, target string, args ...string) (*v1alpha1.WhyReport, int, string, error) {
	t.Helper()
	stdout, status, stderr := e.runWhy(t, target, args...)
	var r v1alpha1.WhyReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		return nil, status, stderr, fmt.Errorf("kubectl-podsrc why %s %s printed no report (exit %d): %v\nstdout:\n%s\nstderr:\n%s", target, strings.Join(args, " "), status, err, stdout, stderr)
	}
	return &r, status, stderr, nil
}

func jsonIndent(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}
