package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// PodsOptions are the options of kubectl podsrc pods.
type PodsOptions struct {
	printOptions
	Source        string
	AllNamespaces bool
	// Selector is -l, a label selector of the pods.
	Selector  string
	namespace string
	// query is what the agents are asked for.
	query v1alpha1.PodQuery
}

// NewCmdPods returns the pods command.
func NewCmdPods(common *CommonOptions) *cobra.Command {
	o := &PodsOptions{printOptions: newPrintOptions(common)}
	o.PrintFlags.SetKind(schema.GroupKind{Group: v1alpha1.GroupName, Kind: v1alpha1.KindPod})
	o.PrintFlags.Labels = true
	o.PrintFlags.Columns = printers.PodColumns(false).Reference()
	cmd := &cobra.Command{
		Use:   "pods NODE...",
		Short: "Show the pods the kubelet's sources configure on nodes",
		Long: longDesc(`
			Show the pods of each node as the kubelet's merged configuration and its
			PLEG see them: where each pod came from (file, http, api; <runtime> for
			pods the runtime runs that no source configures), whether it is a static
			or a mirror pod, its sandbox, its containers (running/total) and restarts,
			and when the kubelet first saw it.

			Unlike kubectl get, all namespaces are shown unless -n is given or the
			kubeconfig's context sets a namespace, as kubectl takes it (-A: all). -l
			selects pods by their labels, as in kubectl (pods only the runtime has
			carry none); nodes are selected with --node-selector. The agents
			filter by -n, -l and --source, so the pods left out do not cross the
			API server's proxy.` + nodeByNodeHelp),
		Example: templates.Examples(`
			# The pods of one node
			kubectl podsrc pods node-1

			# Only static pods from manifest files in kube-system, with IPs and hashes
			kubectl podsrc pods node-1 --source=file -n kube-system -o wide

			# The pods labelled app=web on the control plane nodes
			kubectl podsrc pods --node-selector=node-role.kubernetes.io/control-plane -l app=web

			# UIDs of the pods on all nodes
			kubectl podsrc pods --all-nodes -o jsonpath='{range .items[*]}{.nodeName} {.metadata.uid}{"\n"}{end}'`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.PodSelector = &o.Selector
	o.addFlags(cmd)
	cmd.Flags().StringVar(&o.Source, "source", o.Source, "Only pods of this source ("+strings.Join(v1alpha1.Sources, ", ")+").")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", o.AllNamespaces, "Pods of all namespaces, even if the kubeconfig's context sets one (the default unless -n is given or the context sets a namespace).")
	_ = cmd.RegisterFlagCompletionFunc("source", completeSources)
	return cmd
}

// completeSources completes --source.
func completeSources(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{v1alpha1.SourceFile, v1alpha1.SourceHTTP, v1alpha1.SourceAPI}, cobra.ShellCompDirectiveNoFileComp
}

// Complete fills in the nodes, the printer and the query the agents get:
// they filter the pods, so that those left out do not cross the proxy.
func (o *PodsOptions) Complete(args []string) error {
	ns, err := o.targetNamespace(o.AllNamespaces)
	if err != nil {
		return err
	}
	o.namespace = ns
	source := o.Source
	if source != "" {
		source = canonical([]string{source}, v1alpha1.Sources)[0]
	}
	o.query = v1alpha1.PodQuery{Source: source, Selector: o.Selector}
	if o.namespace != "" {
		o.query.Namespaces = []string{o.namespace}
	}
	if err := o.printOptions.Complete(args); err != nil {
		return err
	}
	o.setScope(o.namespace)
	return nil
}

// Validate checks the options.
func (o *PodsOptions) Validate() error {
	if o.AllNamespaces && o.namespace != "" {
		return fmt.Errorf("-A/--all-namespaces and -n/--namespace exclude each other")
	}
	if err := o.query.Validate(); err != nil {
		return queryFlagError(err)
	}
	return o.printOptions.Validate()
}

// Run prints the pods.
func (o *PodsOptions) Run(ctx context.Context) error {
	call := func(a *client.Agent, ctx context.Context) (*v1alpha1.PodList, error) {
		return a.Pods(ctx, o.query)
	}
	return printEach(ctx, &o.printOptions, call, func(lists []v1alpha1.PodList) printers.Printable {
		return printers.Pods{Lists: lists, ManyNodes: severalNodes(&o.Nodes, o.CommonOptions)}
	})
}
