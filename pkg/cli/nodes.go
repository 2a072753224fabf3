package cli

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/client"
)

// NodeFlags select the nodes a command covers: names, --all-nodes or
// -l/--selector on node labels.
type NodeFlags struct {
	Names          []string
	AllNodes       bool
	Selector       string
	MaxConcurrency int
	// Optional says no node at all is fine (version).
	Optional bool
	// Streaming says the command keeps one stream per node open (watch),
	// so that --max-concurrency does not apply.
	Streaming bool
}

// AddFlags binds the node selection flags to cmd.
func (f *NodeFlags) AddFlags(cmd *cobra.Command) {
	if f.MaxConcurrency == 0 {
		f.MaxConcurrency = 16
	}
	cmd.Flags().BoolVar(&f.AllNodes, "all-nodes", f.AllNodes, "Cover every node of the cluster.")
	cmd.Flags().StringVarP(&f.Selector, "selector", "l", f.Selector, "Cover the nodes matching this label selector (e.g. -l node-role.kubernetes.io/control-plane).")
	if !f.Streaming {
		cmd.Flags().IntVar(&f.MaxConcurrency, "max-concurrency", f.MaxConcurrency, "How many nodes to talk to at once.")
	}
}

// Validate checks the selection against the connection flags.
func (f *NodeFlags) Validate(o *CommonOptions) error {
	if f.MaxConcurrency < 1 {
		return fmt.Errorf("--max-concurrency %d: want at least 1", f.MaxConcurrency)
	}
	selecting := f.AllNodes || f.Selector != ""
	if f.AllNodes && f.Selector != "" {
		return fmt.Errorf("--all-nodes and --selector exclude each other")
	}
	if selecting && len(f.Names) > 0 {
		return fmt.Errorf("name nodes or select them with --all-nodes/--selector, not both")
	}
	if o.Direct() {
		if selecting {
			return fmt.Errorf("--agent-url talks to one agent: --all-nodes and --selector do not apply")
		}
		if len(f.Names) > 1 {
			return fmt.Errorf("--agent-url talks to one agent: name at most one node")
		}
		return nil
	}
	if !selecting && len(f.Names) == 0 && !f.Optional {
		return fmt.Errorf("name at least one node, or use --all-nodes or -l/--selector (or --agent-url to talk to one agent)")
	}
	return nil
}

// Resolve returns the node names to cover, sorted for selections, in the
// given order for names; with --agent-url one empty name (the agent says).
// For selections it also returns the kubelet version of every node listed.
func (f *NodeFlags) Resolve(ctx context.Context, o *CommonOptions) (names []string, kubelets map[string]string, err error) {
	if o.Direct() {
		if len(f.Names) == 1 {
			return f.Names, nil, nil
		}
		return []string{""}, nil, nil
	}
	if !f.AllNodes && f.Selector == "" {
		return f.Names, nil, nil
	}
	cs, err := o.Clientset()
	if err != nil {
		return nil, nil, err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: f.Selector})
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
		if f.Selector != "" {
			return nil, nil, fmt.Errorf("no node matches -l %q", f.Selector)
		}
		return nil, nil, fmt.Errorf("the cluster has no nodes")
	}
	return names, kubelets, nil
}
