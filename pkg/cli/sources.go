package cli

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// SourcesOptions are the options of kubectl podsrc sources.
type SourcesOptions struct {
	printOptions
}

// NewCmdSources returns the sources command.
func NewCmdSources(common *CommonOptions) *cobra.Command {
	o := &SourcesOptions{printOptions: newPrintOptions(common)}
	o.PrintFlags.Columns = printers.SourceColumns().Reference()
	cmd := &cobra.Command{
		Use:   "sources NODE...",
		Short: "Show the kubelet's pod sources on nodes",
		Long: longDesc(`
			Show the pod sources the kubelet of each node merges: static pod files,
			the static pod URL and the API server. One row per node and source:
			what it watches, whether it sent its first full list (SEEN), whether all
			of the node's sources did (READY, the kubelet's readiness to sync pods),
			how many pods it has, when it last sent a list, its errors and the
			warnings the kubelet only logs about manifests it accepts (WARNINGS,
			such as v1.37's about a static pod's priority; -o yaml has their text).

			-o wide adds the last error, the manifests that were rejected,
			shadowed by another file defining the same pod or warned about, and the agent's
			journal (JOURNAL): on with its events, size and oldest event, off, or
			failed and why, when the node's events will not outlive the agent.` + nodeByNodeHelp),
		Example: templates.Examples(`
			# The sources of one node
			kubectl podsrc sources node-1

			# Every control-plane node, with errors and rejected files
			kubectl podsrc sources --node-selector=node-role.kubernetes.io/control-plane -o wide

			# One agent reached directly, as JSON
			kubectl podsrc sources --agent-url=http://10.0.0.5:10270 -o json`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.addFlags(cmd)
	return cmd
}

// Run prints the sources.
func (o *SourcesOptions) Run(ctx context.Context) error {
	return printEach(ctx, &o.printOptions, (*client.Agent).Sources, func(lists []v1alpha1.SourceList) printers.Printable {
		return printers.Sources{Lists: lists}
	})
}
