package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow the test checks.
type workflow struct {
	On          map[string]map[string][]string `yaml:"on"`
	Permissions map[string]string              `yaml:"permissions"`
	Jobs        map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// makeCall finds make invocations in a step's script: the targets and
// variables up to the end of the command.
var makeCall = regexp.MustCompile(`(?m)\bmake((?:[ \t]+[^\s;&|]+)+)`)

// TestReleaseWorkflow checks .github/workflows/release.yaml, which cannot
// run here: it runs on pushed version tags only; every make target it calls
// exists (make -n takes the very invocation); it pushes and publishes the
// files make dist writes, names the agent's repository the manifests use,
// and points the krew release bot at the template make dist writes.
func TestReleaseWorkflow(t *testing.T) {
	t.Chdir("../..")
	data, err := os.ReadFile(".github/workflows/release.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.2, as GitHub reads it: "on" is a key, not a boolean.
	var w workflow
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(false)
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("release.yaml: %v", err)
	}
	push, ok := w.On["push"]
	if len(w.On) != 1 || !ok || len(push) != 1 || len(push["tags"]) == 0 {
		t.Fatalf("on: %v, want push of tags only", w.On)
	}
	for _, tag := range push["tags"] {
		if !strings.HasPrefix(tag, "v") {
			t.Fatalf("tag pattern %q: releases are v-prefixed semantic versions", tag)
		}
	}
	if w.Permissions["contents"] != "write" || w.Permissions["packages"] != "write" {
		t.Fatalf("permissions %v: uploading needs contents: write, pushing packages: write", w.Permissions)
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+):`).FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}

	var script []string
	var bot map[string]string
	for name, job := range w.Jobs {
		if job.Env["IMAGE"] != agentRepository {
			t.Errorf("job %s pushes to %q, want %s", name, job.Env["IMAGE"], agentRepository)
		}
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "rajatjindal/krew-release-bot@") {
				bot = s.With
			}
			if s.Run == "" {
				continue
			}
			script = append(script, s.Run)
			for _, m := range makeCall.FindAllStringSubmatch(s.Run, -1) {
				args := strings.Fields(m[1])
				for _, a := range args {
					if !strings.Contains(a, "=") && !strings.HasPrefix(a, "-") && !targets[a] {
						t.Errorf("step %q calls make %s: the Makefile has no target %s", s.Name, a, a)
					}
				}
				if _, err := exec.LookPath("make"); err == nil {
					dryArgs := []string{"-n"}
					for _, a := range args {
						dryArgs = append(dryArgs, strings.ReplaceAll(os.Expand(a, func(string) string { return "v0.0.0-test" }), `"`, ""))
					}
					if out, err := exec.Command("make", dryArgs...).CombinedOutput(); err != nil {
						t.Errorf("make -n %s: %v\n%s", strings.Join(args, " "), err, out)
					}
				}
			}
		}
	}
	all := strings.Join(script, "\n")
	for _, f := range []string{imageArchive("${TAG}-kubelet1.${minor}"), imageDigestFile("${TAG}-kubelet1.${minor}")} {
		if !strings.Contains(all, "dist/"+f) {
			t.Errorf("the workflow never uses dist/%s, which make dist writes for each minor", f)
		}
	}
	// The images pushed are those of every minor make dist builds.
	var minors []string
	for _, b := range agentBuilds {
		minors = append(minors, strconv.Itoa(int(b.minor)))
	}
	if loop := "for minor in " + strings.Join(minors, " ") + "; do"; !strings.Contains(all, loop) {
		t.Errorf("the workflow does not push the image of every minor: no %q", loop)
	}
	if bot == nil {
		t.Fatal("no krew release bot step")
	}
	if tmpl := bot["krew_template_file"]; tmpl != "krew/"+krewTemplate {
		t.Fatalf("the krew release bot reads %q, make dist writes krew/%s", tmpl, krewTemplate)
	}
	if !slices.Contains(strings.Fields(all), "--preserve-digests") {
		t.Error("the image push may change its digest: use skopeo's --preserve-digests")
	}
}
