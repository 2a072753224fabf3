package cli

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// PLEGOptions are the options of kubectl podsrc pleg.
type PLEGOptions struct {
	printOptions
}

// NewCmdPLEG returns the pleg command.
func NewCmdPLEG(common *CommonOptions) *cobra.Command {
	o := &PLEGOptions{printOptions: newPrintOptions(common)}
	o.PrintFlags.Columns = printers.PLEGColumns().Reference()
	cmd := &cobra.Command{
		Use:   "pleg NODE...",
		Short: "Show the health and latencies of the kubelet's PLEG on nodes",
		Long: longDesc(`
			Show what the kubelet's generic PLEG sees on each node: whether it is
			healthy (the kubelet's "PLEG is not healthy" verdict), how long ago it
			last relisted, relist duration p50/p99/max, the relist interval, failures
			and events dropped for a full channel. Below, once all nodes have
			answered: the latency of every CRI call and the slowest pod inspections.
			-o wide adds whether the agent follows the runtime's container events
			(following, broken, unsupported or off) and how many relists they
			brought forward.` +
			nodeByNodeHelp),
		Example: templates.Examples(`
			# The PLEG of one node
			kubectl podsrc pleg node-1

			# Every node, with the runtime endpoint, runtime events and the kubelet's message
			kubectl podsrc pleg --all-nodes -o wide

			# The relist p99 of each node
			kubectl podsrc pleg --all-nodes -o jsonpath='{range .items[*]}{.nodeName} {.relistDuration.p99Seconds}{"\n"}{end}'`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.addFlags(cmd)
	return cmd
}

// Run prints the PLEG status.
func (o *PLEGOptions) Run(ctx context.Context) error {
	return printEach(ctx, &o.printOptions, (*client.Agent).PLEG, func(statuses []v1alpha1.PLEGStatus) printers.Printable {
		return printers.PLEG{Statuses: statuses}
	})
}
