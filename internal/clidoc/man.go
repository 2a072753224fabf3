package clidoc

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Man writes the man pages of every available command under root into
// dir, in the manual section given (1 for kubectl podsrc, 8 for the
// agent), naming source (podsrc and its version) in their header.
func Man(dir string, root *cobra.Command, section, source string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making the man page directory: %w", err)
	}
	walk(root, func(c *cobra.Command) { c.DisableAutoGenTag = true })
	header := &doc.GenManHeader{Section: section, Source: source, Manual: "podsrc"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("writing the man pages of %s: %w", root.CommandPath(), err)
	}
	return nil
}
