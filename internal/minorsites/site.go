// Package minorsites knows every place of the repository that lists the
// kubelet minors podsrc reproduces: the agent modules, the build, the
// images, the suite, the minor and semantics tables and the docs. It reads
// the minors each place names, says which places a minor is missing from
// (Check), and registers a new minor in all of them (Register).
package minorsites

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Site is one place that names kubelet minors: a file, and in it the
// matches of a pattern whose first group is a minor's two digits (36 for
// v1.36).
type Site struct {
	// Name says where the minors are listed, as a reader looks for it.
	Name string
	// Path is the file, relative to the repository's root.
	Path string
	// Block, when set, is the part of the file the items are looked for in
	// (the first match); the site is missing if it does not match.
	Block *regexp.Regexp
	// Item matches one mention of a minor; its first group is the minor.
	Item *regexp.Regexp
	// NewestOnly: the site names the newest minor only (everything in it
	// is about the agent that is built by default), not every minor.
	NewestOnly bool
	// Copy, for a site of every minor, makes the new minor's item from the
	// newest one's (by default the newest item's text with the minor
	// renamed, see rename), and Sep goes between the two.
	Copy func(item string, r rename) string
	Sep  string
	// Demote, when set, rewrites the former newest item once the new
	// minor's follows it (the suite gives the newest module a bigger
	// budget).
	Demote func(item string) string
}

// mention is one item of a site: the minor it names, the span of the whole
// item and of the minor's digits.
type mention struct {
	minor                kubeletminor.Minor
	start, end           int
	minorStart, minorEnd int
}

// mentions reads the items of s from the file's content; ok is false when
// the site's block is not in the file.
func (s Site) mentions(content []byte) (ms []mention, ok bool) {
	offset, text := 0, content
	if s.Block != nil {
		loc := s.Block.FindIndex(content)
		if loc == nil {
			return nil, false
		}
		offset, text = loc[0], content[loc[0]:loc[1]]
	}
	for _, m := range s.Item.FindAllSubmatchIndex(text, -1) {
		n, err := strconv.Atoi(string(text[m[2]:m[3]]))
		if err != nil {
			continue
		}
		ms = append(ms, mention{
			minor: kubeletminor.Minor(n),
			start: offset + m[0], end: offset + m[1],
			minorStart: offset + m[2], minorEnd: offset + m[3],
		})
	}
	return ms, true
}

// Minors reads the minors the site names under root, sorted and without
// repetition.
func (s Site) Minors(root string) ([]kubeletminor.Minor, error) {
	content, err := os.ReadFile(filepath.Join(root, s.Path))
	if err != nil {
		return nil, fmt.Errorf("reading the minors of %s: %w", s.Name, err)
	}
	ms, ok := s.mentions(content)
	if !ok {
		return nil, fmt.Errorf("reading the minors of %s: %s no longer matches %s", s.Name, s.Path, s.Block)
	}
	var minors []kubeletminor.Minor
	for _, m := range ms {
		minors = append(minors, m.minor)
	}
	slices.Sort(minors)
	return slices.Compact(minors), nil
}

// add registers r.to in the file's content: a site of the newest minor
// names it instead of r.from everywhere; a site of every minor gets the
// copy of r.from's item after it.
func (s Site) add(content []byte, r rename) ([]byte, error) {
	ms, ok := s.mentions(content)
	if !ok {
		return nil, fmt.Errorf("%s: %s no longer matches %s", s.Name, s.Path, s.Block)
	}
	if s.NewestOnly {
		out := slices.Clone(content)
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if m.minor != r.from {
				return nil, fmt.Errorf("%s names %s, not the newest minor %s: fix it first (go test ./internal/minorsites)", s.Name, m.minor, r.from)
			}
			out = slices.Replace(out, m.minorStart, m.minorEnd, []byte(r.digits())...)
		}
		return out, nil
	}
	i := slices.IndexFunc(ms, func(m mention) bool { return m.minor == r.from })
	if i < 0 {
		return nil, fmt.Errorf("%s does not name the newest minor %s to copy", s.Name, r.from)
	}
	m := ms[i]
	item := string(content[m.start:m.end])
	copyItem := r.apply(item)
	if s.Copy != nil {
		copyItem = s.Copy(item, r)
	}
	old := item
	if s.Demote != nil {
		old = s.Demote(item)
	}
	return slices.Concat(content[:m.start], []byte(old+s.Sep+copyItem), content[m.end:]), nil
}
