package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"
	"k8s.io/kubectl/pkg/util/templates"
)

// completionShim is the executable kubectl (1.26 and later) runs to
// complete kubectl podsrc <TAB>; the release archives ship it (hack/dist).
const completionShim = "kubectl_complete-podsrc"

// NewCmdCompletion returns the completion command.
func NewCmdCompletion(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: longDesc(`
			Print the completion script of kubectl-podsrc for a shell.

			For kubectl podsrc <TAB> to complete through kubectl itself (kubectl 1.26
			and later), put the ` + completionShim + ` executable of the release archive
			(` + completionShim + `.cmd on Windows) on the PATH, next to kubectl-podsrc:
			kubectl runs it to complete its plugin. With krew, link it from the
			plugin's directory into krew's bin directory, as the README shows.`),
		Example: templates.Examples(`
			# bash, for this shell
			source <(kubectl podsrc completion bash)

			# zsh, for every new shell
			kubectl podsrc completion zsh > "${fpath[1]}/_kubectl-podsrc"

			# fish
			kubectl podsrc completion fish > ~/.config/fish/completions/kubectl-podsrc.fish

			# powershell, for this shell
			kubectl podsrc completion powershell | Out-String | Invoke-Expression`),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("name one shell: %s (kubectl podsrc completion bash)", strings.Join(cmd.ValidArgs, ", "))
			}
			return nil
		},
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
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
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return fmt.Errorf("unsupported shell %q: want bash, zsh, fish or powershell", args[0])
		},
	}
}

// completeNodes completes node names from the cluster, leaving out the
// nodes already named.
func completeNodes(o *CommonOptions) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var names []string
		for _, n := range completion.CompGetResource(o.factory(), "node", toComplete) {
			if !slices.Contains(args, n) {
				names = append(names, n)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerGlobalCompletions completes the cluster flags as kubectl does:
// -n with the cluster's namespaces, --context, --cluster and --user with
// the kubeconfig's.
func registerGlobalCompletions(root *cobra.Command, o *CommonOptions) {
	// kubectl's kubeconfig listings read the factory it was last given.
	fromConfig := func(list func(string) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			completion.SetFactoryForCompletion(o.factory())
			return list(toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	completions := map[string]func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective){
		"namespace": func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return completion.CompGetResource(o.factory(), "namespace", toComplete), cobra.ShellCompDirectiveNoFileComp
		},
		"context": fromConfig(completion.ListContextsInConfig),
		"cluster": fromConfig(completion.ListClustersInConfig),
		"user":    fromConfig(completion.ListUsersInConfig),
	}
	for name, f := range completions {
		_ = root.RegisterFlagCompletionFunc(name, f)
	}
}

// factory returns a kubectl factory on the cluster flags, for kubectl's
// completion helpers.
func (o *CommonOptions) factory() cmdutil.Factory {
	return cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(o.ConfigFlags))
}
