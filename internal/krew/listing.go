package krew

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxShortDescription is the length `krew search` shows of a
// shortDescription; krew-index asks that it fit.
const MaxShortDescription = 50

// MaxCaveatLines bounds the caveats krew prints after an install: krew's
// developer guide asks for what the user must do next, not documentation.
const MaxCaveatLines = 3

// CheckListing checks what krew shows of p in search and after an install
// against krew-index's guidelines: a shortDescription that `krew search`
// shows whole, and caveats short enough to be read.
func CheckListing(p Plugin) error {
	if n := utf8.RuneCountInString(p.Spec.ShortDescription); n > MaxShortDescription {
		return fmt.Errorf("spec.shortDescription has %d characters; krew search shows %d", n, MaxShortDescription)
	}
	if n := len(strings.Split(strings.TrimSpace(p.Spec.Caveats), "\n")); p.Spec.Caveats != "" && n > MaxCaveatLines {
		return fmt.Errorf("spec.caveats has %d lines, want at most %d: say what to do next, leave documentation to the homepage", n, MaxCaveatLines)
	}
	return nil
}
