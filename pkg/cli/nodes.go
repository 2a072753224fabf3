package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/client"
)

// NodeFlags select the nodes a command covers: names, --all-nodes or
// --node-selector on node labels. -l/--selector is kubectl's pod label
// selector: a command that selects pods binds it to PodSelector before
// AddFlags; on the others -l is refused with a pointer to --node-selector.
type NodeFlags struct {
	Names          []string
	AllNodes       bool
	NodeSelector   string
	MaxConcurrency int
	// PodSelector, when the command selects pods by label, receives -l.
	PodSelector *string
	// podSelector receives -l of a command that does not select pods by
	// label.
	podSelector string
	// Optional says no node at all is fine (version).
	Optional bool
	// Streaming says the command keeps one stream per node open (watch,
	// events), so that --max-concurrency does not apply.
	Streaming bool
	// Follow says the streams go on until stopped (watch): --node-timeout
	// and --request-timeout bound only their first answer.
	Follow bool
}

// scope says where a command looked, for "No resources found": in the
// namespace, when given, and on the nodes named, or those selected.
func (f *NodeFlags) scope(o *CommonOptions, namespace string) string {
	s := ""
	if namespace != "" {
		s = " in " + namespace + " namespace"
	}
	switch {
	case o.From != "":
		s += " in the archive " + o.From
	case o.Direct():
		s += " at the agent " + o.AgentURL
	case f.AllNodes:
		s += " on any node"
	case f.NodeSelector != "":
		s += " on the nodes matching --node-selector=" + f.NodeSelector
	case len(f.Names) == 1:
		s += " on node " + f.Names[0]
	case len(f.Names) > 1:
		s += " on nodes " + strings.Join(f.Names, ", ")
	}
	return s
}

// AddFlags binds the node selection flags to cmd.
func (f *NodeFlags) AddFlags(cmd *cobra.Command) {
	if f.MaxConcurrency == 0 {
		f.MaxConcurrency = 16
	}
	cmd.Flags().BoolVar(&f.AllNodes, "all-nodes", f.AllNodes, "Cover every node of the cluster.")
	cmd.Flags().StringVar(&f.NodeSelector, "node-selector", f.NodeSelector, "Cover the nodes matching this label selector (e.g. --node-selector=node-role.kubernetes.io/control-plane).")
	if f.PodSelector != nil {
		cmd.Flags().StringVarP(f.PodSelector, "selector", "l", *f.PodSelector, "Only pods matching this label selector, as in kubectl (e.g. -l app=web,tier!=cache). Nodes are selected with --node-selector.")
	} else {
		cmd.Flags().StringVarP(&f.podSelector, "selector", "l", "", "Not a node selector: use --node-selector.")
		_ = cmd.Flags().MarkHidden("selector")
	}
	if !f.Streaming {
		cmd.Flags().IntVar(&f.MaxConcurrency, "max-concurrency", f.MaxConcurrency, "How many nodes to talk to at once.")
	}
}

// Validate checks the selection against the connection flags.
func (f *NodeFlags) Validate(o *CommonOptions) error {
	if f.MaxConcurrency < 1 {
		return fmt.Errorf("--max-concurrency %d: want at least 1", f.MaxConcurrency)
	}
	if err := f.checkPodSelector(o); err != nil {
		return err
	}
	selecting := f.AllNodes || f.NodeSelector != ""
	if f.AllNodes && f.NodeSelector != "" {
		return fmt.Errorf("--all-nodes and --node-selector exclude each other")
	}
	if selecting && len(f.Names) > 0 {
		return fmt.Errorf("name nodes or select them with --all-nodes/--node-selector, not both")
	}
	if o.From != "" {
		if selecting {
			return fmt.Errorf("--from reads the archive of one node: --all-nodes and --node-selector do not apply")
		}
		// Resolve checks the names against the archive's node.
		return nil
	}
	if o.Direct() {
		if selecting {
			return fmt.Errorf("--agent-url talks to one agent: --all-nodes and --node-selector do not apply")
		}
		if len(f.Names) > 1 {
			return fmt.Errorf("--agent-url talks to one agent: name at most one node")
		}
		return nil
	}
	if !selecting && len(f.Names) == 0 && !f.Optional {
		return fmt.Errorf("name at least one node, or use --all-nodes or --node-selector (or --agent-url to talk to one agent)")
	}
	return nil
}

// Selecting reports whether nodes are selected rather than named.
func (f *NodeFlags) Selecting() bool {
	return f.AllNodes || f.NodeSelector != ""
}

// Resolve returns the node names to cover, sorted for selections, in the
// given order for names; with --agent-url one empty name (the agent says).
// For selections it also returns the kubelet version of every node listed.
func (f *NodeFlags) Resolve(ctx context.Context, o *CommonOptions) (names []string, kubelets map[string]string, err error) {
	if o.From != "" {
		names, err := o.archiveNodes(f.Names)
		return names, nil, err
	}
	if o.Direct() {
		if len(f.Names) == 1 {
			return f.Names, nil, nil
		}
		return []string{""}, nil, nil
	}
	if !f.Selecting() {
		return f.Names, nil, nil
	}
	cs, err := o.Clientset()
	if err != nil {
		return nil, nil, err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: f.NodeSelector})
	if err != nil {
		return nil, nil, client.ClusterError(err, "listing nodes")
	}
	kubelets = make(map[string]string, len(nodes.Items))
	for _, n := range nodes.Items {
		names = append(names, n.Name)
		kubelets[n.Name] = n.Status.NodeInfo.KubeletVersion
	}
	sort.Strings(names)
	if len(names) == 0 {
		if f.NodeSelector != "" {
			return nil, nil, fmt.Errorf("no node matches --node-selector %q", f.NodeSelector)
		}
		return nil, nil, fmt.Errorf("the cluster has no nodes")
	}
	return names, kubelets, nil
}
