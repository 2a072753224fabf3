package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// SourcesOptions are the options of kubectl podsrc sources.
type SourcesOptions struct {
	*CommonOptions
	Nodes      NodeFlags
	PrintFlags *printers.PrintFlags
	printer    printers.Printer
}

// NewCmdSources returns the sources command.
func NewCmdSources(common *CommonOptions) *cobra.Command {
	o := &SourcesOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags()}
	cmd := &cobra.Command{
		Use:   "sources NODE...",
		Short: "Show the kubelet's pod sources on nodes",
		Long: templates.LongDesc(`
			Show the pod sources the kubelet of each node merges: static pod files,
			the static pod URL and the API server. One row per node and source:
			what it watches, whether it sent its first full list (SEEN), whether all
			of the node's sources did (READY, the kubelet's readiness to sync pods),
			how many pods it has and when it last sent a list.

			-o wide adds the last error and the manifests that were rejected or
			shadowed by another file defining the same pod.`),
		Example: templates.Examples(`
			# The sources of one node
			kubectl podsrc sources node-1

			# Every control-plane node, with errors and rejected files
			kubectl podsrc sources -l node-role.kubernetes.io/control-plane -o wide

			# One agent reached directly, as JSON
			kubectl podsrc sources --agent-url=http://10.0.0.5:10270 -o json`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.AddFlags(cmd)
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Complete fills in the nodes and the printer.
func (o *SourcesOptions) Complete(args []string) error {
	o.Nodes.Names = args
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *SourcesOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// Run prints the sources.
func (o *SourcesOptions) Run(ctx context.Context) error {
	results, err := agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent) (v1alpha1.SourceList, error) {
		l, err := a.Sources(ctx)
		if err != nil {
			return v1alpha1.SourceList{}, err
		}
		return *l, nil
	})
	if err != nil {
		return err
	}
	return finish(results, o.ErrOut, func(lists []v1alpha1.SourceList) error {
		if err := o.printer.Print(printers.Sources{Lists: lists, Single: o.Nodes.Single(o.CommonOptions)}, o.Out); err != nil {
			return fmt.Errorf("printing: %w", err)
		}
		return nil
	})
}
