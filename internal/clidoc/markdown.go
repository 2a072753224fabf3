// Package clidoc documents podsrc's command trees: one Markdown page of
// every command and flag (docs/commands.md) and man pages, both from the
// cobra commands that run, so that neither can drift from the flags.
package clidoc

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// header opens the Markdown page; go test ./docs/ compares the committed
// page with a fresh one.
const header = `# Commands and flags

<!-- Generated from the command trees (pkg/cli, pkg/agent) by make docs; do not edit. -->

Every command of ` + "`kubectl podsrc`" + ` and of ` + "`podsrc-agent`" + `, with its flags, as
` + "`--help`" + ` prints them. This page is generated from the commands themselves by
` + "`make docs`" + ` (` + "`go run ./hack/gendocs`" + `), which also writes their man pages;
` + "`go test ./docs/`" + ` fails when it is stale. The flags every ` + "`kubectl podsrc`" + `
command takes are listed once, under [kubectl podsrc](#kubectl-podsrc)
(` + "`kubectl podsrc options`" + ` prints them too).
`

// Markdown writes the reference page of the command trees under roots:
// an index, then each available command with its description, usage,
// examples and flags. Flag defaults that depend on the machine or the
// build are written in words (stable), so the page is the same everywhere.
func Markdown(w io.Writer, roots ...*cobra.Command) error {
	var b bytes.Buffer
	b.WriteString(header)
	var cmds []*cobra.Command
	for _, root := range roots {
		walk(root, func(c *cobra.Command) { cmds = append(cmds, c) })
	}
	b.WriteString("\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "- [%s](#%s): %s\n", c.CommandPath(), anchor(c.CommandPath()), escape(c.Short))
	}
	for _, c := range cmds {
		writeCommand(&b, c)
	}
	_, err := w.Write(b.Bytes())
	if err != nil {
		return fmt.Errorf("writing the command reference: %w", err)
	}
	return nil
}

// writeCommand writes one command's section.
func writeCommand(b *bytes.Buffer, c *cobra.Command) {
	fmt.Fprintf(b, "\n## %s\n\n%s\n", c.CommandPath(), escape(c.Short))
	if long := strings.TrimSpace(c.Long); long != "" && long != strings.TrimSpace(c.Short) {
		fmt.Fprintf(b, "\n%s\n", escape(long))
	}
	fmt.Fprintf(b, "\nUsage:\n\n```\n%s\n```\n", c.UseLine())
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "\nAliases: %s\n", strings.Join(c.Aliases, ", "))
	}
	if ex := trimLines(c.Example); ex != "" {
		fmt.Fprintf(b, "\nExamples:\n\n```sh\n%s\n```\n", ex)
	}
	title := "Flags"
	if !c.HasParent() && c.HasAvailableSubCommands() {
		title = "Flags of every command"
	}
	if flags := c.LocalFlags(); flags.HasAvailableFlags() {
		fmt.Fprintf(b, "\n%s:\n\n```\n%s```\n", title, stable(flags.FlagUsages()))
	}
	if c.HasParent() && c.InheritedFlags().HasAvailableFlags() {
		root := c.Root()
		fmt.Fprintf(b, "\nAnd [the flags of every command](#%s).\n", anchor(root.CommandPath()))
	}
}

// trimLines drops the spaces that end text's lines and the blank lines
// that end it.
func trimLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// walk calls f on c and every available command under it, in cobra's
// order (sorted by name).
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			walk(sub, f)
		}
	}
}

// anchor is the fragment a Markdown renderer gives a heading: lower case,
// spaces as hyphens, punctuation other than hyphens dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownEscaper escapes the characters of a command's description that
// Markdown would take for markup.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `&lt;`, `>`, `&gt;`, `|`, `\|`,
)

// escape makes text print as written in Markdown.
func escape(text string) string {
	return markdownEscaper.Replace(text)
}
