package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink matches a link's target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRelativeLinksExist checks that every relative link of the README and
// the docs names a file that exists and, for a Markdown page, a heading it
// has.
func TestRelativeLinksExist(t *testing.T) {
	all := pages(t)
	byPath := map[string]page{}
	for _, p := range all {
		byPath[absolute(t, p.path)] = p
	}
	links := 0
	for _, p := range all {
		for _, m := range markdownLink.FindAllStringSubmatch(withoutCodeSpans(p.prose), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, fragment, _ := strings.Cut(target, "#")
			path := p.path
			if file != "" {
				path = filepath.Join(filepath.Dir(p.path), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", p.path, target)
					continue
				}
			}
			if fragment == "" {
				continue
			}
			linked, ok := byPath[absolute(t, path)]
			if !ok {
				t.Errorf("%s links to %s: a fragment of a page the test does not read", p.path, target)
				continue
			}
			if !linked.anchors[fragment] {
				t.Errorf("%s links to %s, which has no heading #%s", p.path, target, fragment)
			}
		}
	}
	if links < 20 {
		t.Errorf("found %d relative links; the parser is missing them", links)
	}
}

// withoutCodeSpans blanks the code spans of prose, where a ](x) is code.
func withoutCodeSpans(prose string) string {
	return codeSpan.ReplaceAllString(prose, "``")
}

// absolute is path made absolute, so that the same page has one name from
// every page that links to it.
func absolute(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
