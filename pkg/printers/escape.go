package printers

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeControls returns s with every character that could steer a terminal
// written visibly, so that text an agent sends can neither move the cursor,
// clear the screen, retitle the window, plant a link (OSC 8) nor reorder
// what is shown:
//
//   - a C0 control (below U+0020) as Go writes it in a quoted string:
//     \t, \n, \r, \a, \b, \f, \v, and \xNN for the others (ESC is \x1b);
//   - DEL, a C1 control (U+0080 to U+009F) and a bidirectional-text control
//     (U+200E, U+202E, U+2066, ...) as \uXXXX (CSI is \u009b);
//   - a byte that is not part of valid UTF-8 as \xNN.
//
// Everything else, backslashes included, is left as it is. The \uXXXX
// form is also JSON's, so escaping JSON text leaves the values it encodes
// unchanged (JSON encoders escape C0 controls already).
func EscapeControls(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r < 0x20:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		case r == 0x7f || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			b.WriteString(`\u`)
			b.WriteString(hex2(byte(r >> 8)))
			b.WriteString(hex2(byte(r)))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether s may hold a character EscapeControls
// rewrites: any control byte, DEL, or any non-ASCII byte (checked rune by
// rune then).
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return false
}

// layoutOnly reports whether the only control bytes of p, if any, are line
// feeds and tabs, and p is ASCII.
func layoutOnly(p []byte) bool {
	for _, c := range p {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// hex2 formats a byte as two lower-case hex digits.
func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// escapingWriter passes text through EscapeControls, keeping line feeds and
// tabs: the layout of free text, JSON, YAML and templates.
type escapingWriter struct{ w io.Writer }

// NewEscapingWriter returns a writer that writes to w what it is given with
// every control character but line feed and tab escaped by EscapeControls.
// Each Write is escaped on its own: a character split across two writes is
// escaped byte by byte.
func NewEscapingWriter(w io.Writer) io.Writer {
	if ew, ok := w.(*escapingWriter); ok {
		return ew
	}
	return &escapingWriter{w: w}
}

// Write implements io.Writer.
func (e *escapingWriter) Write(p []byte) (int, error) {
	if layoutOnly(p) {
		if _, err := e.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	s := string(p)
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\n\t")
		if i < 0 {
			b.WriteString(EscapeControls(s))
			break
		}
		b.WriteString(EscapeControls(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
	if _, err := io.WriteString(e.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// PrintLine writes one line of human text, such as an error or a warning:
// the formatted text with EscapeControls applied (so that what an agent
// said can neither steer the terminal nor start a line of its own), then a
// line feed.
func PrintLine(w io.Writer, format string, args ...any) error {
	_, err := io.WriteString(w, EscapeControls(fmt.Sprintf(format, args...))+"\n")
	return err
}
