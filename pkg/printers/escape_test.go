package printers

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestEscapeControls(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", `kube-system/etcd-node-1 C:\path ü 日本`, `kube-system/etcd-node-1 C:\path ü 日本`},
		{"clear screen", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"window title (OSC 0, BEL)", "\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"OSC 8 link", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\click\x1b]8;;\x1b\`},
		{"line breaks and tabs", "a\nb\r\nc\td\fe\vf\bg", `a\nb\r\nc\td\fe\vf\bg`},
		{"NUL and DEL", "a\x00b\x7fc", `a\x00b\u007fc`},
		{"C1 CSI and OSC as UTF-8", "\u009b2J\u009d0;t\u009c", `\u009b2J\u009d0;t\u009c`},
		{"bidi override", "abc\u202edcb", `abc\u202edcb`},
		{"bytes that are not UTF-8", "a\x9b2J\xff", `a\x9b2J\xff`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EscapeControls(tc.in); got != tc.want {
				t.Fatalf("EscapeControls(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEscapingWriter(t *testing.T) {
	t.Run("keeps line feeds and tabs", func(t *testing.T) {
		var b bytes.Buffer
		w := NewEscapingWriter(&b)
		in := "a\tb\nc\x1b]0;t\x07\r\n"
		n, err := w.Write([]byte(in))
		if err != nil || n != len(in) {
			t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
		}
		if want := "a\tb\nc\\x1b]0;t\\a\\r\n"; b.String() != want {
			t.Fatalf("wrote %q, want %q", b.String(), want)
		}
	})
	t.Run("JSON keeps its values", func(t *testing.T) {
		in := map[string]string{"s": "x\x1b[2J\u009b2J\u202e\x7f\ty\n\\u009b"}
		enc, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := NewEscapingWriter(&b).Write(enc); err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexFunc(b.Bytes(), func(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x202e }); i >= 0 {
			t.Fatalf("escaped JSON %q still has a control character at %d", b.String(), i)
		}
		var out map[string]string
		if err := json.Unmarshal(b.Bytes(), &out); err != nil {
			t.Fatalf("escaped JSON %q does not decode: %v", b.String(), err)
		}
		if out["s"] != in["s"] {
			t.Fatalf("escaped JSON decodes to %q, want %q", out["s"], in["s"])
		}
	})
}
