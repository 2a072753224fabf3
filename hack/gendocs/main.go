// Command gendocs writes podsrc's command reference from its cobra command
// trees: docs/commands.md (committed; go test ./docs/ fails when it is
// stale) and, with -man, the man pages of kubectl podsrc (section 1) and
// podsrc-agent (section 8). make docs runs it.
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
)

func main() {
	markdown := flag.String("markdown", "docs/commands.md", "Write the command reference page here (empty: none).")
	man := flag.String("man", "", "Write the man pages into this directory (empty: none).")
	flag.Parse()
	if err := run(*markdown, *man); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// run writes the page and the man pages asked for.
func run(markdown, man string) error {
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
