package printers

import "strings"

// belowIndent starts every line a row carries below it (Row.Below), and
// belowWidth bounds those lines, indent included, in terminal columns.
const (
	belowIndent = "    "
	belowWidth  = 100
)

// inlineWidth is the widest text a table keeps in its cell; a longer one
// goes under its row (see placeLong).
const inlineWidth = 100

// belowCell stands in a cell whose text is printed under the row.
const belowCell = "see below"

// placeLong returns what a cell shows of s and the lines to print under
// the row: s itself and none when it fits in inlineWidth columns on one
// line, else belowCell and s wrapped (wrapText), the first line after
// label when label is not empty.
func placeLong(s, label string) (string, []string) {
	if !strings.Contains(s, "\n") && displayWidth(EscapeControls(s)) <= inlineWidth {
		return s, nil
	}
	if label != "" {
		s = label + ": " + s
	}
	return belowCell, wrapText(s, belowWidth-len(belowIndent))
}

// wrapText breaks s, control characters escaped, into lines of at most
// width terminal columns at spaces; a word wider than that is broken
// where it reaches the width. Line breaks in s are kept.
func wrapText(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		line, lineWidth := "", 0
		for _, word := range strings.Fields(EscapeControls(para)) {
			for displayWidth(word) > width {
				head, rest := cutWidth(word, width)
				if line != "" {
					out = append(out, line)
				}
				out = append(out, head)
				line, lineWidth, word = "", 0, rest
			}
			w := displayWidth(word)
			switch {
			case line == "":
				line, lineWidth = word, w
			case lineWidth+1+w <= width:
				line, lineWidth = line+" "+word, lineWidth+1+w
			default:
				out = append(out, line)
				line, lineWidth = word, w
			}
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// cutWidth splits s after its first width terminal columns.
func cutWidth(s string, width int) (string, string) {
	n := 0
	for i, r := range s {
		n += displayWidth(string(r))
		if n > width && i > 0 {
			return s[:i], s[i:]
		}
	}
	return s, ""
}
