package redact

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// contentError is an error of decoding a manifest whose message leaves out
// what the manifest holds; full is the kubelet's own message, content and
// all.
type contentError struct {
	msg  string
	full error
}

func (e *contentError) Error() string { return e.msg }

// Unredacted returns err's message with the manifest content its decoding
// error leaves out put back: the kubelet's own message, as the agent serves
// it with --expose-pod-specs only. err may wrap the decoder's error (with
// %w); an error without left-out content is its own message.
func Unredacted(err error) string {
	var ce *contentError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	return strings.Replace(err.Error(), ce.msg, ce.full.Error(), 1)
}

// Body is a manifest or URL body a message quotes: in full in the
// kubelet's message, by its size in podsrc's.
type Body []byte

// Errorf returns the kubelet's error fmt.Errorf(format, args...), an error
// of decoding a manifest, with a message that keeps out the manifest's
// content: each error in args loses what it quotes of the manifest and
// each Body is replaced by its size. Unredacted gives the kubelet's
// message back.
func Errorf(format string, args ...any) error {
	given := make([]any, len(args))
	kept := make([]any, len(args))
	for i, arg := range args {
		given[i], kept[i] = arg, arg
		switch arg := arg.(type) {
		case Body:
			given[i] = string(arg)
			kept[i] = fmt.Sprintf("<the %d-byte body>", len(arg))
		case error:
			kept[i] = withoutContent(arg)
		}
	}
	full := fmt.Errorf(format, given...)
	msg := fmt.Errorf(format, kept...).Error()
	if msg == full.Error() {
		return full
	}
	return &contentError{msg: msg, full: full}
}

// contentInMessage are the places where the messages of decoding a
// manifest quote what it holds, and what each becomes without it: the
// manifest as JSON after a missing kind or apiVersion, the kubelet's dump
// of an object that is no pod, a number a field could not
// take, the key and value of a YAML map key JSON cannot have, a YAML
// value of the wrong type, a time that does not parse, a kind and version
// no scheme registers, and a YAML alias to no anchor.
var contentInMessage = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?s)(Object '(?:Kind|apiVersion)' is missing) in '.*`), "$1"},
	{regexp.MustCompile(`(?s)(invalid (?:pod|pods list): &[A-Za-z0-9_]+\.[A-Za-z0-9_]+)\{.*`), "$1{...}"},
	{regexp.MustCompile(`(cannot unmarshal number) \S+ (into)`), "$1 $2"},
	{regexp.MustCompile(`(?s)(unsupported map key of type: [^,]+), key: .*`), "$1"},
	{regexp.MustCompile(`(?s)(invalid map key): .*`), "$1"},
	{regexp.MustCompile("(cannot unmarshal \\S+) `[^`]*` (into)"), "$1 $2"},
	{regexp.MustCompile(`(parsing time) ` + goQuoted), "$1 <value>"},
	{regexp.MustCompile(`(cannot parse) ` + goQuoted + ` (as)`), "$1 <value> $2"},
	{regexp.MustCompile(`(extra text): ` + goQuoted), "$1"},
	{regexp.MustCompile(`(no kind) ` + goQuoted + ` (is registered for version) ` + goQuoted), "$1 <kind> $2 <version>"},
	{regexp.MustCompile(`(unknown anchor) '[^']*'`), "$1"},
}

// goQuoted matches a string as Go's %q quotes it.
const goQuoted = `"(?:[^"\\]|\\.)*"`

// withoutContent returns err, an error the kubelet's code gave for a
// manifest, with its class and position ("Object 'Kind' is missing",
// "yaml: line 7: …", "json: cannot unmarshal string into Go struct field
// …") and without the manifest's content it may quote.
func withoutContent(err error) error {
	msg := err.Error()
	for _, c := range contentInMessage {
		msg = c.re.ReplaceAllString(msg, c.repl)
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
