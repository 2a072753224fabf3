package docs

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/clidoc"
	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/cli"
	"github.com/podsrc/podsrc/pkg/printers"
)

// commandTrees are the command trees of kubectl podsrc and podsrc-agent,
// as their binaries build them.
func commandTrees() (plugin, agentCmd *cobra.Command) {
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: io.Discard, ErrOut: io.Discard}
	return cli.NewCommand(streams), agent.NewCommand(0, nil, nil)
}

// TestCommandsPageIsCurrent checks that commands.md is what make docs
// writes from today's command trees.
func TestCommandsPageIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("commands.md")
	if err != nil {
		t.Fatal(err)
	}
	var fresh bytes.Buffer
	plugin, agentCmd := commandTrees()
	if err := clidoc.Markdown(&fresh, plugin, agentCmd); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, fresh.Bytes()) {
		t.Errorf("docs/commands.md is stale: run make docs and commit it (first difference near: %q)", firstDifference(committed, fresh.Bytes()))
	}
}

// firstDifference is the line of b where a and b first differ.
func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range bl {
		if i >= len(al) || al[i] != bl[i] {
			return bl[i]
		}
	}
	return "(commands.md has more lines)"
}

// TestShownCommandsExist checks that every kubectl podsrc and podsrc-agent
// command line the README and the docs show, in code blocks and code
// spans, names commands that exist and flags those commands take. A code
// span that starts with a kubectl podsrc command's name and shows a flag
// (`watch --snapshot`) is read as that command; one that starts with a
// long flag (`--node-timeout`) must name a flag of one of the commands.
func TestShownCommandsExist(t *testing.T) {
	plugin, agentCmd := commandTrees()
	flags := flagNames(plugin, agentCmd)
	shown := 0
	for _, p := range pages(t) {
		if p.path == "commands.md" {
			continue // written from the trees themselves
		}
		for _, code := range p.code {
			if name, ok := strings.CutPrefix(code, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				if name, _, _ = strings.Cut(name, " "); !flags[name] {
					t.Errorf("%s: %q: no command of kubectl podsrc or podsrc-agent has the flag --%s", p.path, code, name)
				}
			}
			for _, line := range commandLines(code, plugin) {
				shown++
				root := plugin
				if line.agent {
					root = agentCmd
				}
				for _, problem := range checkCommandLine(root, line.args) {
					t.Errorf("%s: %q: %s", p.path, code, problem)
				}
			}
		}
	}
	if shown < 50 {
		t.Errorf("found %d command lines in the docs; the parser is missing them", shown)
	}
}

// flagNames are the long names of every flag of the trees under roots.
func flagNames(roots ...*cobra.Command) map[string]bool {
	names := map[string]bool{}
	var add func(c *cobra.Command)
	add = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		}
		for _, sub := range c.Commands() {
			add(sub)
		}
	}
	for _, root := range roots {
		add(root)
	}
	return names
}

// commandLine is one invocation a doc shows: its arguments after the
// program's name.
type commandLine struct {
	agent bool
	args  []string
}

// commandLines finds the invocations of kubectl podsrc and podsrc-agent in
// a line of code.
func commandLines(code string, plugin *cobra.Command) []commandLine {
	words := clidoc.ShellWords(code)
	var out []commandLine
	for i, w := range words {
		w = strings.TrimLeft(w, "$<(")
		switch {
		case w == "kubectl" && i+1 < len(words) && words[i+1] == "podsrc":
			out = append(out, commandLine{args: words[i+2:]})
		case w == "podsrc-agent" || strings.HasSuffix(w, "/podsrc-agent"):
			out = append(out, commandLine{agent: true, args: words[i+1:]})
		}
	}
	if len(out) == 0 && len(words) > 1 && subcommand(plugin, words[0]) != nil && strings.HasPrefix(words[1], "-") {
		out = append(out, commandLine{args: words})
	}
	return out
}

// checkCommandLine walks args as cobra would: the leading words that name
// subcommands select the command, and every flag must be one it takes.
func checkCommandLine(root *cobra.Command, args []string) []string {
	var problems []string
	cmd := root
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		var f *pflag.Flag
		switch {
		case a == "--":
			return problems
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f = lookupFlag(cmd, name, ""); f == nil {
				problems = append(problems, cmd.CommandPath()+" has no flag --"+name)
				continue
			}
			if !hasValue && f.NoOptDefVal == "" {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			short := a[1:2]
			if f = lookupFlag(cmd, "", short); f == nil {
				problems = append(problems, cmd.CommandPath()+" has no flag -"+short)
				continue
			}
			if len(a) == 2 && f.NoOptDefVal == "" {
				i++
			}
		default:
			if sub := subcommand(cmd, a); sub != nil && !positional {
				cmd = sub
				continue
			}
			positional = true
		}
	}
	return problems
}

// lookupFlag finds a flag of cmd, its own or inherited, by name or by
// shorthand.
func lookupFlag(cmd *cobra.Command, name, short string) *pflag.Flag {
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		if name != "" {
			if f := fs.Lookup(name); f != nil {
				return f
			}
		} else if f := fs.ShorthandLookup(short); f != nil {
			return f
		}
	}
	return nil
}

// subcommand is cmd's subcommand of that name or alias, if any.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// TestColumnsPageIsCurrent checks that columns.md is what make docs writes
// from today's column lists.
func TestColumnsPageIsCurrent(t *testing.T) {
	committed, err := os.ReadFile("columns.md")
	if err != nil {
		t.Fatal(err)
	}
	var fresh bytes.Buffer
	if err := clidoc.ColumnsMarkdown(&fresh, printers.TableReferences()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, fresh.Bytes()) {
		t.Errorf("docs/columns.md is stale: run make docs and commit it (first difference near: %q)", firstDifference(committed, fresh.Bytes()))
	}
}
