package docs

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/internal/clidoc"
)

// makefile is what the Makefile declares: its targets with their ## line,
// and its variables.
type makefile struct {
	// targets are the rule names in order, described maps each to its ##
	// text ("" when it has none).
	targets   []string
	described map[string]string
	variables map[string]bool
}

var (
	makeRule     = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*):(?:[^=]|$)`)
	makeVariable = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)\s*[?:]?=`)
)

// readMakefile parses the repository's Makefile.
func readMakefile(t *testing.T) makefile {
	t.Helper()
	text, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := makefile{described: map[string]string{}, variables: map[string]bool{}}
	for _, line := range strings.Split(string(text), "\n") {
		if r := makeRule.FindStringSubmatch(line); r != nil {
			_, desc, _ := strings.Cut(line, "## ")
			m.targets = append(m.targets, r[1])
			m.described[r[1]] = desc
		}
		if v := makeVariable.FindStringSubmatch(line); v != nil {
			m.variables[v[1]] = true
		}
	}
	if len(m.targets) < 10 {
		t.Fatalf("found %d targets in the Makefile; the parser is missing them", len(m.targets))
	}
	return m
}

// help is what make help prints.
func (m makefile) help() string {
	var b strings.Builder
	for _, target := range m.targets {
		fmt.Fprintf(&b, "%-13s %s\n", target, m.described[target])
	}
	return b.String()
}

// TestEveryTargetInHelp checks that every target of the Makefile has the
// one-line description make help prints, and that development.md opens
// with make help's output as it is.
func TestEveryTargetInHelp(t *testing.T) {
	m := readMakefile(t)
	for _, target := range m.targets {
		if m.described[target] == "" {
			t.Errorf("make %s has no ## description, so make help leaves it out", target)
		}
	}
	page, err := os.ReadFile("development.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), "```\n$ make help\n")
	shown, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("development.md does not show make help's output in a code block")
	}
	if want := m.help(); shown != want {
		t.Errorf("development.md shows make help as\n%s\nmake help prints\n%s", shown, want)
	}
}

// makeTarget matches a word that could be a target.
var makeTarget = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// TestShownMakeTargetsExist checks that every make command the README and
// the docs show, in code blocks and code spans, names targets and
// variables the Makefile has.
func TestShownMakeTargetsExist(t *testing.T) {
	m := readMakefile(t)
	shown := 0
	for _, p := range pages(t) {
		for _, code := range p.code {
			words := clidoc.ShellWords(code)
			for i, w := range words {
				if w != "make" {
					continue
				}
				for _, a := range words[i+1:] {
					if name, _, ok := strings.Cut(a, "="); ok {
						if !m.variables[name] {
							t.Errorf("%s: %q sets %s, which the Makefile does not use", p.path, code, name)
						}
						continue
					}
					if strings.HasPrefix(a, "-") {
						continue
					}
					if !makeTarget.MatchString(a) {
						break
					}
					shown++
					if _, ok := m.described[a]; !ok {
						t.Errorf("%s: %q runs make %s, which the Makefile does not have", p.path, code, a)
					}
				}
			}
		}
	}
	if shown < 10 {
		t.Errorf("found %d make targets in the docs; the parser is missing them", shown)
	}
}
