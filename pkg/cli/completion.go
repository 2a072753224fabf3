package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"
)

// NewCmdCompletion returns the completion command.
func NewCmdCompletion(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: templates.LongDesc(`
			Print the completion script of kubectl-podsrc for a shell.

			For kubectl podsrc <TAB> to complete through kubectl itself (kubectl 1.26
			and later), put an executable named kubectl_complete-podsrc on the PATH
			that runs: kubectl-podsrc __complete "$@"`),
		Example: templates.Examples(`
			# bash, for this shell
			source <(kubectl podsrc completion bash)

			# zsh, for every new shell
			kubectl podsrc completion zsh > "${fpath[1]}/_kubectl-podsrc"

			# fish
			kubectl podsrc completion fish > ~/.config/fish/completions/kubectl-podsrc.fish`),
		Args:                  cobra.ExactArgs(1),
		ValidArgs:             []string{"bash", "zsh", "fish"},
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return fmt.Errorf("unsupported shell %q: want bash, zsh or fish", args[0])
		},
	}
}
