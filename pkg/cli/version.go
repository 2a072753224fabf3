package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/util/templates"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
)

// VersionOptions are the options of kubectl podsrc version.
type VersionOptions struct {
	*CommonOptions
	Nodes  NodeFlags
	Output string
}

// VersionInfo is what version prints with -o json|yaml.
type VersionInfo struct {
	ClientVersion ClientVersion `json:"clientVersion"`
	Nodes         []NodeVersion `json:"nodes,omitempty"`
	Warnings      []string      `json:"warnings,omitempty"`
}

// ClientVersion describes this binary.
type ClientVersion struct {
	Version    string `json:"version"`
	APIVersion string `json:"apiVersion"`
	GoVersion  string `json:"goVersion"`
}

// NodeVersion describes one node's agent and kubelet.
type NodeVersion struct {
	Node           string            `json:"node"`
	Agent          *v1alpha1.Version `json:"agent,omitempty"`
	KubeletVersion string            `json:"kubeletVersion,omitempty"`
}

// NewCmdVersion returns the version command.
func NewCmdVersion(common *CommonOptions) *cobra.Command {
	o := &VersionOptions{CommonOptions: common}
	o.Nodes.Optional = true
	cmd := &cobra.Command{
		Use:   "version [NODE...]",
		Short: "Print the client's version, and the agent's and kubelet's of nodes",
		Long: templates.LongDesc(`
			Print the version of kubectl podsrc. With nodes, also print the version of
			their agent, the kubelet version whose behavior the agent reproduces and
			the version of the node's kubelet, and warn when they are skewed. Without
			nodes it needs no cluster.`),
		Example: templates.Examples(`
			# The client's version only
			kubectl podsrc version

			# The client's, and the agent's and kubelet's of node-1
			kubectl podsrc version node-1

			# As JSON
			kubectl podsrc version --all-nodes -o json`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.AddFlags(cmd)
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "One of json or yaml.")
	return cmd
}

// Complete fills in the nodes.
func (o *VersionOptions) Complete(args []string) error {
	o.Nodes.Names = args
	return nil
}

// Validate checks the options.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
		return fmt.Errorf("--output %q: want json or yaml", o.Output)
	}
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// wantsNodes reports whether the agent part is asked for.
func (o *VersionOptions) wantsNodes() bool {
	return o.Direct() || len(o.Nodes.Names) > 0 || o.Nodes.AllNodes || o.Nodes.Selector != ""
}

// Run prints the versions.
func (o *VersionOptions) Run(ctx context.Context) error {
	info := VersionInfo{ClientVersion: ClientVersion{Version: version.Version, APIVersion: v1alpha1.GroupVersion, GoVersion: runtime.Version()}}
	var results []result[NodeVersion]
	failed := false
	if o.wantsNodes() {
		// The node's kubelet version is best effort: without the cluster
		// (--agent-url) or the permission to get nodes, it is left out.
		var cs kubernetes.Interface
		if !o.Direct() {
			cs, _ = o.Clientset()
		}
		var err error
		results, err = agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent) (NodeVersion, error) {
			v, err := a.Version(ctx)
			if err != nil {
				return NodeVersion{}, err
			}
			nv := NodeVersion{Node: a.Node, Agent: v}
			if nv.Node == "" {
				nv.Node = v.NodeName
			}
			if cs != nil {
				if n, err := cs.CoreV1().Nodes().Get(ctx, a.Node, metav1.GetOptions{}); err == nil {
					nv.KubeletVersion = n.Status.NodeInfo.KubeletVersion
				}
			}
			return nv, nil
		})
		if err != nil {
			return err
		}
		info.Nodes, failed = splitResults(results)
		for _, n := range info.Nodes {
			info.Warnings = append(info.Warnings, skewWarnings(n)...)
		}
	}
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.Out, string(b))
	case "yaml":
		b, err := yaml.Marshal(info)
		if err != nil {
			return err
		}
		o.Out.Write(b)
	default:
		fmt.Fprintf(o.Out, "Client Version: %s\n", info.ClientVersion.Version)
		for _, n := range info.Nodes {
			fmt.Fprintf(o.Out, "Node %s:\n", n.Node)
			fmt.Fprintf(o.Out, "  Agent Version: %s (serves %s/%s, %s)\n", n.Agent.AgentVersion, v1alpha1.GroupName, n.Agent.ServedVersion, n.Agent.GoVersion)
			fmt.Fprintf(o.Out, "  Kubelet Semantics: %s\n", n.Agent.KubeletSemantics)
			if n.KubeletVersion != "" {
				fmt.Fprintf(o.Out, "  Kubelet Version: %s\n", n.KubeletVersion)
			}
		}
		for _, w := range info.Warnings {
			fmt.Fprintf(o.ErrOut, "WARNING: %s\n", w)
		}
	}
	printErrors(results, o.ErrOut)
	if failed {
		return errFailed
	}
	return nil
}

// skewWarnings compares a node's agent with this client and its kubelet.
func skewWarnings(n NodeVersion) []string {
	var out []string
	if n.Agent == nil {
		return nil
	}
	if !sameMinor(version.Version, n.Agent.AgentVersion) {
		out = append(out, fmt.Sprintf("kubectl-podsrc %s and the agent on node %s (%s) are different releases; install matching versions", version.Version, n.Node, n.Agent.AgentVersion))
	}
	if n.Agent.ServedVersion != "" && n.Agent.ServedVersion != v1alpha1.VersionName {
		out = append(out, fmt.Sprintf("the agent on node %s serves %s/%s, this kubectl-podsrc speaks %s", n.Node, v1alpha1.GroupName, n.Agent.ServedVersion, v1alpha1.GroupVersion))
	}
	if n.KubeletVersion != "" && !sameMinor(n.KubeletVersion, n.Agent.KubeletSemantics) {
		out = append(out, fmt.Sprintf("node %s runs kubelet %s but its agent reproduces kubelet %s; what podsrc shows may differ from what this kubelet does", n.Node, n.KubeletVersion, n.Agent.KubeletSemantics))
	}
	return out
}

// sameMinor reports whether two versions share major and minor; unparsable
// versions only match themselves.
func sameMinor(a, b string) bool {
	va, erra := utilversion.ParseGeneric(strings.TrimSpace(a))
	vb, errb := utilversion.ParseGeneric(strings.TrimSpace(b))
	if erra != nil || errb != nil {
		return a == b
	}
	return va.Major() == vb.Major() && va.Minor() == vb.Minor()
}
