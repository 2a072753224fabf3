package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCommand returns kubectl podsrc's command tree on streams, as Execute
// runs it, for what documents it: the generated command reference, the man
// pages and the test that checks the commands the docs show.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return newRootCommand(NewCommonOptions(streams))
}
