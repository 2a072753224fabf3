package printers

import (
	"unicode"

	"golang.org/x/text/width"
)

// displayWidth returns how many terminal columns s takes: East Asian wide
// and fullwidth characters (CJK, most emoji) two, nonspacing and enclosing
// marks (combining accents, variation selectors) and format characters
// (the zero-width joiner) none, everything else one. Bytes would count é as two columns and
// 日 as three, and runes 日 as one.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}
