package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	// The client-go credential plugins (exec, OIDC) for kubeconfigs that use
	// them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// Execute runs kubectl podsrc with args and returns its exit code; an
// error not printed yet goes to streams.ErrOut, escaped like every error.
func Execute(ctx context.Context, streams genericiooptions.IOStreams, args []string) int {
	return execute(ctx, NewCommonOptions(streams), args)
}

// execute runs the command tree built on common.
func execute(ctx context.Context, common *CommonOptions, args []string) int {
	root := newRootCommand(common)
	root.SetArgs(args)
	return exitCode(common, root.ExecuteContext(ctx))
}

// exitCode is the exit code of a command that ended with err, which it
// prints to common.ErrOut unless printed already.
func exitCode(common *CommonOptions, err error) int {
	if err == nil {
		return 0
	}
	var status exitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	var run runError
	switch {
	case errors.Is(err, errFailed):
	case errors.As(err, &run):
		printers.PrintLine(common.ErrOut, "error: %v", err)
	default:
		// ErrOut escapes controls but line feeds and tabs.
		fmt.Fprintf(common.ErrOut, "error: %s\n", strings.TrimRight(err.Error(), "\n"))
	}
	return 1
}

// newRootCommand builds the command tree on common, which tests may adjust.
func newRootCommand(common *CommonOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubectl-podsrc",
		Short: "Show what a node's kubelet sees: pod sources, their merge and the PLEG",
		Long: longDesc(`
			kubectl podsrc shows what the kubelet of a node sees: its pod sources
			(static pod files, the static pod URL, the API server), the
			notifications their merge makes (ADD, UPDATE, DELETE, REMOVE, RECONCILE)
			and what its PLEG reports. It asks the podsrc agent that runs on every
			node (` + client.DeployCommand + `).

			Agents are reached through the API server's node proxy by default, which
			needs get nodes/proxy (ClusterRole ` + client.NodeProxyRole + `). That
			permission also opens the kubelet's own API, exec included (exec over
			WebSocket is a GET). --via=pod-proxy goes to the agent's pod instead and
			needs only get pods/proxy and list pods in namespace ` + client.AgentNamespace + `
			(ClusterRole ` + client.PodProxyRole + `, bound there by a RoleBinding).
			--agent-url talks to one agent directly, without a cluster.

			Each node gets --node-timeout (default ` + DefaultNodeTimeout.String() + `; 0: no limit) for all
			a command asks its agent, and each single request --request-timeout
			(default ` + DefaultRequestTimeout.String() + `); events reads each node's history within
			both, watch gets both for a node's first answer and then --idle-timeout
			for its silences: a node whose agent or proxy does not answer in time is
			reported with its error, naming it, and the other nodes still print. On a terminal, a line on stderr names the nodes still
			awaited. What agents send is printed with its control characters
			escaped (ESC as \x1b, CSI as \u009b, a line feed in a table cell as
			\n), so that no agent can steer the terminal; -o json keeps the values.`),
		Example: templates.Examples(`
			kubectl podsrc sources node-1
			kubectl podsrc pods --all-nodes --source=file
			kubectl podsrc watch node-1 --snapshot
			kubectl podsrc events node-1 --since=10m
			kubectl podsrc pleg --node-selector=node-role.kubernetes.io/control-plane
			kubectl podsrc why node-1 kube-system/etcd-node-1
			kubectl podsrc version node-1`),
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl podsrc"},
	}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetIn(common.In)
	cmd.SetOut(common.Out)
	cmd.SetErr(common.ErrOut)
	// As kubectl: without a command, the help.
	cmd.Run = func(c *cobra.Command, _ []string) { _ = c.Help() }
	common.AddFlags(cmd)
	addLogFlags(cmd.PersistentFlags())
	cmd.AddCommand(
		NewCmdSources(common),
		NewCmdPods(common),
		NewCmdPod(common),
		NewCmdWatch(common),
		NewCmdEvents(common),
		NewCmdPLEG(common),
		NewCmdWhy(common),
		NewCmdVersion(common),
		NewCmdRecord(common),
		NewCmdDeploy(common),
		NewCmdUndeploy(common),
	)
	addFromFlags(cmd, common)
	cmd.AddCommand(NewCmdCompletion(cmd), NewCmdOptions(common.Out))
	registerGlobalCompletions(cmd, common)
	useKubectlHelp(cmd)
	return cmd
}
