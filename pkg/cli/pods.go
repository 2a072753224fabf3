package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// PodsOptions are the options of kubectl podsrc pods.
type PodsOptions struct {
	*CommonOptions
	Nodes         NodeFlags
	PrintFlags    *printers.PrintFlags
	Source        string
	AllNamespaces bool
	namespace     string
	printer       printers.Printer
}

// NewCmdPods returns the pods command.
func NewCmdPods(common *CommonOptions) *cobra.Command {
	o := &PodsOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags()}
	o.PrintFlags.Kind = schema.GroupKind{Group: "podsrc.io", Kind: v1alpha1.KindPod}
	cmd := &cobra.Command{
		Use:   "pods NODE...",
		Short: "Show the pods the kubelet's sources configure on nodes",
		Long: templates.LongDesc(`
			Show the pods of each node as the kubelet's merged configuration and its
			PLEG see them: where each pod came from (file, http, api; <runtime> for
			pods the runtime runs that no source configures), whether it is a static
			or a mirror pod, its sandbox, its containers (running/total) and restarts,
			and when the kubelet first saw it.

			Unlike kubectl get, all namespaces are shown unless -n is given.`),
		Example: templates.Examples(`
			# The pods of one node
			kubectl podsrc pods node-1

			# Only static pods from manifest files in kube-system, with IPs and hashes
			kubectl podsrc pods node-1 --source=file -n kube-system -o wide

			# UIDs of the pods on all nodes
			kubectl podsrc pods --all-nodes -o jsonpath='{range .items[*].items[*]}{.uid}{"\n"}{end}'`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.AddFlags(cmd)
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().StringVar(&o.Source, "source", o.Source, "Only pods of this source: file, http or api.")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", o.AllNamespaces, "Pods of all namespaces (the default unless -n is given).")
	_ = cmd.RegisterFlagCompletionFunc("source", completeSources)
	return cmd
}

// completeSources completes --source.
func completeSources(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{v1alpha1.SourceFile, v1alpha1.SourceHTTP, v1alpha1.SourceAPI}, cobra.ShellCompDirectiveNoFileComp
}

// validateSource checks a --source value.
func validateSource(s string) error {
	switch s {
	case "", v1alpha1.SourceFile, v1alpha1.SourceHTTP, v1alpha1.SourceAPI:
		return nil
	}
	return fmt.Errorf("--source %q: want file, http or api", s)
}

// Complete fills in the nodes, the namespace and the printer.
func (o *PodsOptions) Complete(args []string) error {
	o.Nodes.Names = args
	if o.ConfigFlags.Namespace != nil {
		o.namespace = *o.ConfigFlags.Namespace
	}
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *PodsOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	if o.AllNamespaces && o.namespace != "" {
		return fmt.Errorf("-A/--all-namespaces and -n/--namespace exclude each other")
	}
	if err := validateSource(o.Source); err != nil {
		return err
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// Run prints the pods.
func (o *PodsOptions) Run(ctx context.Context) error {
	results, err := agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent) (v1alpha1.PodList, error) {
		l, err := a.Pods(ctx, o.Source)
		if err != nil {
			return v1alpha1.PodList{}, err
		}
		if o.namespace != "" {
			items := l.Items[:0]
			for _, p := range l.Items {
				if p.Namespace == o.namespace {
					items = append(items, p)
				}
			}
			l.Items = items
		}
		return *l, nil
	})
	if err != nil {
		return err
	}
	return finish(results, o.ErrOut, func(lists []v1alpha1.PodList) error {
		if err := o.printer.Print(printers.Pods{Lists: lists, Single: o.Nodes.Single(o.CommonOptions)}, o.Out); err != nil {
			return fmt.Errorf("printing: %w", err)
		}
		return nil
	})
}
