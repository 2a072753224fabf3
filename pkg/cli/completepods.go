package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// completionContext bounds a completion that asks agents by
// --node-timeout, or DefaultNodeTimeout when that is 0: a completion never
// hangs.
func completionContext(cmd *cobra.Command, o *CommonOptions) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	bound := o.NodeTimeout
	if bound <= 0 {
		bound = DefaultNodeTimeout
	}
	return context.WithTimeout(ctx, bound)
}

// completePods returns the names of node's pods that begin with
// toComplete, asked of its agent through the client the commands use:
// NAME in the namespace -n or the kubeconfig's context names,
// NAMESPACE/NAME otherwise or with -A (the command's --all-namespaces). A completion that fails offers nothing, nor
// does a name that is not a valid pod name: it comes from the agent, and
// the shell would take its line feeds and escapes as they are.
func completePods(ctx context.Context, cmd *cobra.Command, o *CommonOptions, node, toComplete string) []string {
	conn, err := o.Connector()
	if err != nil {
		return nil
	}
	a, err := conn.Agent(node)
	if err != nil {
		return nil
	}
	defer a.Release()
	all, _ := cmd.Flags().GetBool("all-namespaces")
	ns, err := o.targetNamespace(all)
	if err != nil {
		return nil
	}
	var q v1alpha1.PodQuery
	if ns != "" {
		q.Namespaces = []string{ns}
	}
	list, err := a.Pods(ctx, q)
	if err != nil {
		return nil
	}
	var names []string
	for _, p := range list.Items {
		if len(validation.IsDNS1123Label(p.Namespace)) > 0 || len(validation.IsDNS1123Subdomain(p.Name)) > 0 {
			continue
		}
		name := p.Namespace + "/" + p.Name
		if ns != "" {
			name = p.Name
		}
		if strings.HasPrefix(name, toComplete) {
			names = append(names, name)
		}
	}
	// A static pod and its mirror pod share their name.
	slices.Sort(names)
	return slices.Compact(names)
}

// completeNodeThenPod completes the arguments NODE POD of why and pod:
// node names first, then the pods of the node named; with --agent-url,
// the agent's pods at once.
func completeNodeThenPod(o *CommonOptions) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		node := ""
		switch {
		case o.Direct() && len(args) <= 1:
		case len(args) == 0:
			return completeNodes(o)(cmd, args, toComplete)
		case len(args) == 1:
			node = args[0]
		default:
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := completionContext(cmd, o)
		defer cancel()
		return completePods(ctx, cmd, o, node, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completePodFlag completes --pod with the pods of the nodes named
// (the agent's with --agent-url), all within one --node-timeout; with no
// node named it offers nothing. After a leading ! (exclude) it completes
// the name that follows.
func completePodFlag(o *CommonOptions) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		nodes := args
		if o.Direct() {
			nodes = []string{""}
		}
		ctx, cancel := completionContext(cmd, o)
		defer cancel()
		not, prefix := "", toComplete
		if p, ok := strings.CutPrefix(toComplete, "!"); ok {
			not, prefix = "!", p
		}
		var names []string
		for _, node := range nodes {
			for _, n := range completePods(ctx, cmd, o, node, prefix) {
				names = append(names, not+n)
			}
		}
		// The same pod name may be on several nodes.
		slices.Sort(names)
		return slices.Compact(names), cobra.ShellCompDirectiveNoFileComp
	}
}
