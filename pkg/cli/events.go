package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"
)

// NewCmdEvents returns the events command: watch's history, without
// following.
func NewCmdEvents(common *CommonOptions) *cobra.Command {
	o := newWatchOptions(common, false)
	cmd := &cobra.Command{
		Use:   "events NODE...",
		Short: "Print the recent pod config notifications and PLEG events of nodes, and exit",
		Long: longDesc(`
			Print what the kubelet of each node was told by its pod sources and what
			its PLEG reported, as watch prints it, from the history the agent keeps,
			and exit: each node's stream ends at the event that was the agent's last
			when the command started (or at --until). For a script or a bug report.

			By default every event the agent still keeps is printed; --since and
			--tail narrow that. A GAP line says events were no longer kept.

			The filters are applied by the agents, so that what they leave out does
			not cross the API server's proxy. Each is repeatable, and a value with a
			leading ! excludes what it names. --op, --source and --origin concern config
			events, --type and --container PLEG events: with only one kind's filters
			given (without !), the other kind is left out, unless --kind says
			otherwise. -n, --pod and -l/--selector concern the pods of both kinds; a
			config event keeps only its pods that pass. -l selects pods by the labels
			their configuration had when the event happened, as kubectl's -l does;
			nodes are selected with --node-selector or --all-nodes.`),
		Example: templates.Examples(`
			# Everything node-1's agent keeps
			kubectl podsrc events node-1

			# The last 10 minutes, as one JSON List, for a bug report
			kubectl podsrc events node-1 --since=10m -o json

			# The last 20 container deaths of the pods labelled app=web on the control plane
			kubectl podsrc events --node-selector=node-role.kubernetes.io/control-plane --type=ContainerDied -l app=web --tail=20

			# Static pod file notifications other than UPDATE; the events of the pods etcd-* in kube-system
			kubectl podsrc events node-1 --source=file --op='!UPDATE'
			kubectl podsrc events node-1 --pod='kube-system/etcd-*'

			# Events 100 to 200
			kubectl podsrc events node-1 --since=99 --until=200`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.addFlags(cmd, "Default: every event the agent keeps.")
	return cmd
}
