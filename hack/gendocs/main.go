// Command gendocs writes podsrc's command reference from its cobra command
// trees: docs/commands.md (committed; go test ./docs/ fails when it is
// stale) and, with -man, the man pages of kubectl podsrc (section 1) and
// podsrc-agent (section 8); and the column reference of its tables from
// their column lists, docs/columns.md (committed and checked the same
// way). make docs runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/internal/clidoc"
	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/cli"
	"github.com/podsrc/podsrc/pkg/printers"
)

func main() {
	markdown := flag.String("markdown", "docs/commands.md", "Write the command reference page here (empty: none).")
	man := flag.String("man", "", "Write the man pages into this directory (empty: none).")
	columns := flag.String("columns", "docs/columns.md", "Write the column reference page here (empty: none).")
	flag.Parse()
	if err := run(*markdown, *man, *columns); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// run writes the pages and the man pages asked for.
func run(markdown, man, columns string) error {
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: io.Discard, ErrOut: io.Discard}
	if markdown != "" {
		var b bytes.Buffer
		if err := clidoc.Markdown(&b, cli.NewCommand(streams), agent.NewCommand(0, nil, nil)); err != nil {
			return err
		}
		if err := os.WriteFile(markdown, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the command reference: %w", err)
		}
	}
	if columns != "" {
		var b bytes.Buffer
		if err := clidoc.ColumnsMarkdown(&b, printers.TableReferences()); err != nil {
			return err
		}
		if err := os.WriteFile(columns, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing the column reference: %w", err)
		}
	}
	if man != "" {
		source := "podsrc " + version.Version
		if err := clidoc.Man(filepath.Join(man, "man1"), cli.NewCommand(streams), "1", source); err != nil {
			return err
		}
		if err := clidoc.Man(filepath.Join(man, "man8"), agent.NewCommand(0, nil, nil), "8", source); err != nil {
			return err
		}
	}
	return nil
}
