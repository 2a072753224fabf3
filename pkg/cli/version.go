package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
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
	Node               string            `json:"node"`
	Agent              *v1alpha1.Version `json:"agent,omitempty"`
	NodeKubeletVersion string            `json:"nodeKubeletVersion,omitempty"`

	// answerBy is when a followed stream of the node must have sent its
	// first message (--node-timeout, --request-timeout); zero: no bound.
	answerBy time.Time
}

// NewCmdVersion returns the version command.
func NewCmdVersion(common *CommonOptions) *cobra.Command {
	o := &VersionOptions{CommonOptions: common}
	o.Nodes.Optional = true
	cmd := &cobra.Command{
		Use:   "version [NODE...]",
		Short: "Print the client's version, and the agent's and kubelet's of nodes",
		Long: longDesc(`
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
	return o.Direct() || len(o.Nodes.Names) > 0 || o.Nodes.Selecting()
}

// Run prints the versions.
func (o *VersionOptions) Run(ctx context.Context) error {
	info := VersionInfo{ClientVersion: ClientVersion{Version: version.Version, APIVersion: v1alpha1.GroupVersion, GoVersion: runtime.Version()}}
	var results []result[NodeVersion]
	failed := false
	if o.wantsNodes() {
		// The shared fan-out learns the versions and warns about skew on
		// stderr; -o json|yaml also carries the warnings.
		var err error
		results, err = agentCall(ctx, o.CommonOptions, &o.Nodes, func(_ context.Context, _ *client.Agent, v NodeVersion) (NodeVersion, error) {
			return v, nil
		})
		if err != nil {
			return err
		}
		info.Nodes, failed = splitResults(results)
		info.Warnings = skewWarnings(info.Nodes)
	}
	switch o.Output {
	case "json", "yaml":
		if err := printers.PrintEncoded(o.Out, o.Output, info); err != nil {
			return err
		}
	default:
		printers.PrintLine(o.Out, "Client Version: %s", info.ClientVersion.Version)
		for _, n := range info.Nodes {
			printers.PrintLine(o.Out, "Node %s:", n.Node)
			printers.PrintLine(o.Out, "  Agent Version: %s (serves %s/%s, %s)", n.Agent.AgentVersion, v1alpha1.GroupName, n.Agent.ServedVersion, n.Agent.GoVersion)
			printers.PrintLine(o.Out, "  Reproduced Kubelet Version: %s", n.Agent.ReproducedKubeletVersion)
			if n.NodeKubeletVersion != "" {
				printers.PrintLine(o.Out, "  Kubelet Version: %s", n.NodeKubeletVersion)
			}
		}
	}
	printErrors(results, o.ErrOut)
	if failed {
		return errFailed
	}
	return nil
}
