package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// PodOptions are the options of kubectl podsrc pod.
type PodOptions struct {
	*CommonOptions
	Output string

	// ref is the pod asked for: a UID or NAMESPACE/NAME.
	ref   string
	nodes NodeFlags
}

// NewCmdPod returns the pod command.
func NewCmdPod(common *CommonOptions) *cobra.Command {
	o := &PodOptions{CommonOptions: common}
	cmd := &cobra.Command{
		Use:   "pod NODE UID|NAMESPACE/NAME",
		Short: "Show one pod as a node's kubelet sees it",
		Long: longDesc(`
			Show one pod of a node: where it came from and the state of that source,
			whether it is a static or a mirror pod, its labels, what the container
			runtime has of it (sandbox, IPs, containers) and the notifications and
			PLEG events that named it, as far back as the agent's buffer goes.

			Name the pod by UID, or by NAMESPACE/NAME (looked up in the node's pod
			list). A static pod and its mirror pod share a name: by name you get
			the static pod, and the mirror pod's UID is listed under Same Name.
			With --agent-url, give only the pod.

			As in kubectl, --request-timeout bounds each request to the agent (the
			pod list, the pod, reading its event history); --node-timeout bounds
			the whole command, as for the other commands.`),
		Example: templates.Examples(`
			# The static etcd pod of node-1
			kubectl podsrc pod node-1 kube-system/etcd-node-1

			# A pod by UID, as YAML
			kubectl podsrc pod node-1 3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b -o yaml`),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 || common.Direct() {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeNodes(common)(cmd, args, toComplete)
		},
		RunE: runOptions(o),
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "One of json or yaml.")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Complete takes the node and the pod from args.
func (o *PodOptions) Complete(args []string) error {
	want := 2
	if o.Direct() {
		want = 1
	}
	if len(args) != want {
		if o.Direct() {
			return fmt.Errorf("with --agent-url, name the pod only: kubectl podsrc pod UID|NAMESPACE/NAME --agent-url=URL")
		}
		return fmt.Errorf("name a node and a pod: kubectl podsrc pod NODE UID|NAMESPACE/NAME")
	}
	o.ref = args[want-1]
	o.nodes = NodeFlags{Names: args[:want-1], MaxConcurrency: 1}
	return nil
}

// Validate checks the options.
func (o *PodOptions) Validate() error {
	if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
		return fmt.Errorf("--output %q: want json or yaml", o.Output)
	}
	if ns, name, byName := strings.Cut(o.ref, "/"); byName {
		// A valid name holds no glob character, so the agent's pod glob
		// matches it exactly.
		if len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
			return fmt.Errorf("pod %q: want a UID or NAMESPACE/NAME, as kubectl get pods -A shows them", o.ref)
		}
	}
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	return o.nodes.Validate(o.CommonOptions)
}

// Run prints the pod.
func (o *PodOptions) Run(ctx context.Context) error {
	results, err := agentCall(ctx, o.CommonOptions, &o.nodes, func(ctx context.Context, a *client.Agent, _ NodeVersion) (printers.PodDetail, error) {
		return o.podDetail(ctx, a)
	})
	if err != nil {
		return err
	}
	return finish(results, o.ErrOut, func(details []printers.PodDetail) error {
		d := details[0]
		if o.Output != "" {
			return printers.PrintEncoded(o.Out, o.Output, d)
		}
		return printers.PrintPodDetail(o.Out, d, o.Now())
	})
}

// podDetail gathers what the agent a knows of the pod o.ref.
func (o *PodOptions) podDetail(ctx context.Context, a *client.Agent) (printers.PodDetail, error) {
	var d printers.PodDetail
	ref := o.ref
	sources, err := a.Sources(ctx)
	if err != nil {
		return d, err
	}
	uid := ref
	if ns, _, byName := strings.Cut(ref, "/"); byName {
		// The agent sends only the pods of that namespace and name: a
		// static pod and its mirror pod.
		list, err := a.Pods(ctx, v1alpha1.PodQuery{Namespaces: []string{ns}, Pods: []string{ref}})
		if err != nil {
			return d, err
		}
		matches := list.Items
		if len(matches) == 0 {
			// The node asked for, not the agent's name for it, goes into
			// the suggestion.
			return d, fmt.Errorf("no pod %s on node %s (kubectl podsrc pods %s -n %s lists its pods)", ref, a.Node, a.Node, ns)
		}
		// A static pod and its mirror share the name: the static pod is
		// the one the kubelet runs.
		pick := 0
		for i, p := range matches {
			if !p.Mirror {
				pick = i
				break
			}
		}
		uid = string(matches[pick].UID)
		d.Others = append(matches[:pick:pick], matches[pick+1:]...)
	}
	pod, err := a.Pod(ctx, uid)
	if err != nil {
		return d, err
	}
	pod.NodeName = sources.NodeName
	d.Pod = *pod
	for _, s := range sources.Items {
		if s.Name == pod.Source {
			s.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindSource)
			s.NodeName, s.AllSourcesSeen = sources.NodeName, sources.AllSourcesSeen
			d.Source = &s
		}
	}
	d.Events, d.EventsMissed, err = o.podEvents(ctx, a, string(pod.UID))
	if err != nil {
		return d, fmt.Errorf("reading the events of pod %s: %w", uid, err)
	}
	return d, nil
}

// podEvents returns the events the agent a holds that concern the pod uid,
// oldest first, and whether older ones were evicted.
func (o *PodOptions) podEvents(ctx context.Context, a *client.Agent, uid string) ([]v1alpha1.Event, bool, error) {
	all, missed, err := o.history(ctx, a)
	if err != nil {
		return nil, false, err
	}
	out := []v1alpha1.Event{}
	for _, ev := range all {
		if concerns(ev, uid) {
			out = append(out, ev)
		}
	}
	return out, missed, nil
}

// concerns reports whether ev names the pod uid.
func concerns(ev v1alpha1.Event, uid string) bool {
	if string(ev.PodUID) == uid {
		return true
	}
	for _, p := range ev.Pods {
		if string(p.UID) == uid {
			return true
		}
	}
	return false
}
