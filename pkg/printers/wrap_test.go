package printers

import (
	"slices"
	"strings"
	"testing"
)

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		width int
		want  []string
	}{
		{"fits", "a short message", 20, []string{"a short message"}},
		{"at spaces", "one two three four", 9, []string{"one two", "three", "four"}},
		{"a word wider than the line", "abcdefghij kl", 4, []string{"abcd", "efgh", "ij", "kl"}},
		{"line breaks kept", "first\nsecond line", 20, []string{"first", "second line"}},
		{"wide characters count twice", "日本語 日本", 6, []string{"日本語", "日本"}},
		{"controls escaped", "a\x1b[2Jb", 20, []string{`a\x1b[2Jb`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapText(tc.in, tc.width)
			if !slices.Equal(got, tc.want) {
				t.Errorf("wrapText(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

func TestPlaceLong(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct {
		name, in, label string
		cell            string
		below           int
	}{
		{"fits in its cell", "web exited with code 2", "", "web exited with code 2", 0},
		{"too long goes below", long, "", belowCell, 3},
		{"a second line goes below", "one\ntwo", "", belowCell, 2},
		{"labelled", long, "fix", belowCell, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cell, below := placeLong(tc.in, tc.label)
			if cell != tc.cell || len(below) != tc.below {
				t.Fatalf("placeLong = %q, %q; want %q and %d lines", cell, below, tc.cell, tc.below)
			}
			for _, l := range below {
				if w := displayWidth(belowIndent + l); w > belowWidth {
					t.Errorf("line %q is %d columns wide, more than %d", l, w, belowWidth)
				}
			}
			if tc.label != "" && !strings.HasPrefix(below[0], tc.label+": ") {
				t.Errorf("first line %q does not start with %q", below[0], tc.label)
			}
		})
	}
}
