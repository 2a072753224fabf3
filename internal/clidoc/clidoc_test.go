package clidoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/internal/version"
)

// tree is a small command tree: a root with a global flag and a
// subcommand with its own, an example and markup in its description.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A tool", Run: func(*cobra.Command, []string) {}}
	root.PersistentFlags().String("global", "x", "A flag of every command.")
	sub := &cobra.Command{
		Use:     "show NODE",
		Short:   "Show a node",
		Long:    "Show a <node> with *stars* and a_name.",
		Example: "  tool show node-1  \n\n  tool show node-2\n",
		Run:     func(*cobra.Command, []string) {},
	}
	sub.Flags().Bool("wide", false, "More columns.")
	home, _ := os.UserHomeDir()
	sub.Flags().String("cache-dir", filepath.Join(home, ".cache"), "A cache.")
	sub.Flags().String("image", "registry.example/tool:"+version.Version, "The image.")
	root.AddCommand(sub, &cobra.Command{Use: "hidden", Hidden: true, Run: func(*cobra.Command, []string) {}})
	return root
}

// TestMarkdown checks the page of a small tree: its index, escaped
// descriptions, usage, examples without trailing spaces, each command's
// own flags with defaults that are the same on every machine, the global
// ones once, and no hidden command.
func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, tree()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"- [tool show](#tool-show): Show a node\n",
		"## tool show\n\nShow a node\n\nShow a &lt;node&gt; with \\*stars\\* and a\\_name.\n",
		"```\ntool show NODE [flags]\n```",
		"```sh\n  tool show node-1\n\n  tool show node-2\n```",
		"--wide               More columns.",
		`(default "$HOME/.cache")`,
		`(default "registry.example/tool:<version>")`,
		"And [the flags of every command](#tool).",
		"Flags of every command:\n\n```\n      --global string",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "hidden") {
		t.Errorf("the page shows a hidden command:\n%s", page)
	}
}

// TestMan checks that every available command gets a man page with the
// header asked for and without cobra's generation stamp.
func TestMan(t *testing.T) {
	dir := t.TempDir()
	if err := Man(dir, tree(), "1", "tool v1"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tool.1", "tool-show.1"} {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), `.TH "TOOL`) || !strings.Contains(string(page), "tool v1") {
			t.Errorf("%s has no man header naming its source:\n%s", name, page)
		}
		if strings.Contains(string(page), "Auto generated") {
			t.Errorf("%s carries cobra's generation stamp", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tool-hidden.1")); err == nil {
		t.Error("a hidden command has a man page")
	}
}
