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

// PLEGOptions are the options of kubectl podsrc pleg.
type PLEGOptions struct {
	*CommonOptions
	Nodes      NodeFlags
	PrintFlags *printers.PrintFlags
	printer    printers.Printer
}

// NewCmdPLEG returns the pleg command.
func NewCmdPLEG(common *CommonOptions) *cobra.Command {
	o := &PLEGOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags()}
	cmd := &cobra.Command{
		Use:   "pleg NODE...",
		Short: "Show the health and latencies of the kubelet's PLEG on nodes",
		Long: templates.LongDesc(`
			Show what the kubelet's generic PLEG sees on each node: whether it is
			healthy (the kubelet's "PLEG is not healthy" verdict), how long ago it
			last relisted, relist duration p50/p99/max, the relist interval, failures
			and events dropped for a full channel. Below: the latency of every CRI
			call and the slowest pod inspections.`),
		Example: templates.Examples(`
			# The PLEG of one node
			kubectl podsrc pleg node-1

			# Every node, with the runtime endpoint and the kubelet's message
			kubectl podsrc pleg --all-nodes -o wide

			# The relist p99 of each node
			kubectl podsrc pleg --all-nodes -o jsonpath='{range .items[*]}{.nodeName} {.relistDuration.p99Seconds}{"\n"}{end}'`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.AddFlags(cmd)
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Complete fills in the nodes and the printer.
func (o *PLEGOptions) Complete(args []string) error {
	o.Nodes.Names = args
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *PLEGOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// Run prints the PLEG status.
func (o *PLEGOptions) Run(ctx context.Context) error {
	results, err := agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent) (v1alpha1.PLEGStatus, error) {
		s, err := a.PLEG(ctx)
		if err != nil {
			return v1alpha1.PLEGStatus{}, err
		}
		return *s, nil
	})
	if err != nil {
		return err
	}
	return finish(results, o.ErrOut, func(items []v1alpha1.PLEGStatus) error {
		if err := o.printer.Print(printers.PLEG{Items: items, Single: o.Nodes.Single(o.CommonOptions)}, o.Out); err != nil {
			return fmt.Errorf("printing: %w", err)
		}
		return nil
	})
}
