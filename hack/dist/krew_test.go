package main

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/internal/krew"
)

// committedPlugin reads krew/podsrc.yaml.
func committedPlugin(t *testing.T) krew.Plugin {
	t.Helper()
	data, err := os.ReadFile("krew/podsrc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var p krew.Plugin
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		t.Fatalf("krew/podsrc.yaml: %v", err)
	}
	return p
}

// TestKrewListing checks what krew shows of the committed manifest: a
// shortDescription krew search shows whole, caveats of at most three lines
// that say to run kubectl podsrc deploy, and the release bot's template
// that renders this very manifest.
func TestKrewListing(t *testing.T) {
	t.Chdir("../..")
	p := committedPlugin(t)
	if err := krew.CheckListing(p); err != nil {
		t.Fatalf("krew/podsrc.yaml: %v", err)
	}
	if !strings.Contains(p.Spec.Caveats, "kubectl podsrc deploy") {
		t.Fatalf("the caveats do not say to run kubectl podsrc deploy:\n%s", p.Spec.Caveats)
	}
	tmpl, err := krew.Template(p, p.Spec.Version)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("krew/" + krewTemplate)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(committed), string(tmpl)) {
		t.Fatalf("krew/%s is not the template of krew/podsrc.yaml: run make dist and commit both", krewTemplate)
	}
}

// TestReadmeInstall checks the README's install section: krew install, then
// kubectl podsrc deploy, then a first command; and that its local install
// line gives krew's --manifest and --archive flags the files make dist
// writes.
func TestReadmeInstall(t *testing.T) {
	t.Chdir("../..")
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, install, ok := strings.Cut(readme, "\n## Install\n")
	if !ok {
		t.Fatal("the README has no Install section")
	}
	install, _, _ = strings.Cut(install, "\n## ")
	last := -1
	for _, step := range []string{"kubectl krew install podsrc", "kubectl podsrc deploy", "kubectl podsrc sources <node>"} {
		i := strings.Index(install, step)
		if i < 0 || i < last {
			t.Fatalf("the Install section does not run %q after the step before:\n%s", step, install)
		}
		last = i
	}

	line := regexp.MustCompile(`kubectl krew install --manifest=(\S+) --archive=(\S+)`).FindStringSubmatch(readme)
	if line == nil {
		t.Fatal("the README has no local install line with --manifest and --archive")
	}
	if line[1] != "krew/podsrc.yaml" {
		t.Fatalf("--manifest=%s, make dist writes krew/podsrc.yaml", line[1])
	}
	var archives []string
	for _, pl := range committedPlugin(t).Spec.Platforms {
		archives = append(archives, "dist/"+path.Base(pl.URI))
	}
	if !slices.Contains(archives, line[2]) {
		t.Fatalf("--archive=%s is none of the archives make dist writes: %v", line[2], archives)
	}
}
