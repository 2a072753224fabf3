package printers

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/printers"
)

// Color is an ANSI foreground color of a table row.
type Color string

// Colors of rows.
const (
	NoColor Color = ""
	Red     Color = "\x1b[31m"
	Green   Color = "\x1b[32m"
	Yellow  Color = "\x1b[33m"
	Faint   Color = "\x1b[2m"
)

// reset ends a color.
const reset = "\x1b[0m"

// paint returns line in c.
func paint(c Color, line string) string {
	if c == NoColor || line == "" {
		return line
	}
	return string(c) + line + reset
}

// ColorMode is the value of --color.
type ColorMode string

// Values of --color.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// Enabled says whether to color what is written to w.
func (m ColorMode) Enabled(w io.Writer) (bool, error) {
	switch m {
	case ColorAuto, "":
		return printers.AllowsColorOutput(w), nil
	case ColorAlways:
		return true, nil
	case ColorNever:
		return false, nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", string(m))
}
