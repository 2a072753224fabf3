package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// page is one Markdown document of the repository, split into what it
// shows as code and what it says in prose.
type page struct {
	// path is the file's path from the docs directory.
	path string
	// code are the lines of its fenced blocks (a line ending in a
	// backslash joined with the next) and its inline code spans.
	code []string
	// prose is the text outside fenced blocks.
	prose string
	// anchors are the fragments its headings get.
	anchors map[string]bool
}

// pages reads the README and every page in docs/.
func pages(t *testing.T) []page {
	t.Helper()
	paths, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "../README.md")
	var out []page
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsePage(p, string(text)))
	}
	if len(out) < 10 {
		t.Fatalf("found %d pages, want the README and docs/*.md", len(out))
	}
	return out
}

// codeSpan matches an inline code span, which may run over a line end.
var codeSpan = regexp.MustCompile("`([^`\n]+(?:\n[^`\n]+)?)`")

// parsePage splits a Markdown text into code and prose and collects its
// headings' anchors.
func parsePage(path, text string) page {
	p := page{path: path, anchors: map[string]bool{}}
	var prose strings.Builder
	inFence := false
	pending := ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			if strings.HasSuffix(line, `\`) {
				pending += strings.TrimSuffix(line, `\`)
				continue
			}
			p.code = append(p.code, pending+line)
			pending = ""
			continue
		}
		if h, ok := strings.CutPrefix(line, "#"); ok {
			p.anchors[anchor(strings.TrimLeft(h, "#"))] = true
		}
		prose.WriteString(line)
		prose.WriteString("\n")
	}
	p.prose = prose.String()
	for _, m := range codeSpan.FindAllStringSubmatch(p.prose, -1) {
		p.code = append(p.code, strings.ReplaceAll(m[1], "\n", " "))
	}
	return p
}

// anchor is the fragment GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
