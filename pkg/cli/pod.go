package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/podsrc/podsrc/internal/shell"

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
	PrintFlags *printers.PrintFlags

	// ref is the pod asked for: a UID or NAMESPACE/NAME.
	ref   string
	nodes NodeFlags
	// printer prints the machine-readable formats; nil for people
	// (printers.PrintPodDetail).
	printer printers.Printer
}

// NewCmdPod returns the pod command.
func NewCmdPod(common *CommonOptions) *cobra.Command {
	o := &PodOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags()}
	o.PrintFlags.Objects = true
	cmd := &cobra.Command{
		Use:   "pod NODE POD|NAMESPACE/POD|UID",
		Short: "Show one pod as a node's kubelet sees it",
		Long: longDesc(`
			Show one pod of a node: where it came from and the state of that source,
			whether it is a static or a mirror pod, its labels, what the container
			runtime has of it (sandbox, IPs, containers) and the notifications and
			PLEG events that named it, as far back as the agent's buffer goes.

			Name the pod as kubectl podsrc why and events --pod do: NAMESPACE/POD, or
			POD (in -n's namespace, or the one the kubeconfig's context sets, or else
			in every namespace; also with the node's name appended, as
			the kubelet names static pods), or its UID. A static pod and its mirror
			pod share a name: by name you get the static pod, and the mirror pod's
			UID is listed under Same Name. With --agent-url the node may be left
			out; a node named must be the agent's.

			As in kubectl, --request-timeout bounds each request to the agent (the
			pod list, the pod, reading its event history); --node-timeout bounds
			the whole command, as for the other commands.`),
		Example: templates.Examples(`
			# The static etcd pod of node-1
			kubectl podsrc pod node-1 kube-system/etcd-node-1

			# A pod by UID, as YAML
			kubectl podsrc pod node-1 3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b -o yaml`),
		ValidArgsFunction: completeNodeThenPod(common),
		RunE:              runOptions(o),
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Complete takes the node and the pod from args; with --agent-url the
// node may be left out.
func (o *PodOptions) Complete(args []string) error {
	if o.Direct() && len(args) == 1 {
		args = append([]string{""}, args...)
	}
	if len(args) != 2 {
		if o.Direct() {
			return fmt.Errorf("with --agent-url, name the pod, and the node if you like: kubectl podsrc pod [NODE] POD|NAMESPACE/POD|UID --agent-url=URL")
		}
		return fmt.Errorf("name a node and a pod: kubectl podsrc pod NODE POD|NAMESPACE/POD|UID")
	}
	o.ref = args[1]
	o.nodes = NodeFlags{MaxConcurrency: 1}
	if args[0] != "" {
		o.nodes.Names = args[:1]
	}
	if o.PrintFlags.IsHuman() {
		// Checked as kubectl checks its flags, whatever the format.
		_, err := o.PrintFlags.ColorEnabled(o.Out)
		return err
	}
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	// The pod is printed as it is, not in a List.
	p.(*printers.GenericPrinter).Single = true
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *PodOptions) Validate() error {
	if ns, name, byName := strings.Cut(o.ref, "/"); byName {
		// A valid name holds no glob character, so the agent's pod glob
		// matches it exactly.
		if len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
			return fmt.Errorf("pod %q: want POD, NAMESPACE/POD, as kubectl get pods -A shows them, or a UID", o.ref)
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
		if o.printer != nil {
			return o.printer.Print(d, o.Out)
		}
		return printers.PrintPodDetail(o.Out, d, o.Now())
	})
}

// podDetail gathers what the agent a knows of the pod o.ref.
func (o *PodOptions) podDetail(ctx context.Context, a *client.Agent) (printers.PodDetail, error) {
	var d printers.PodDetail
	sources, err := a.Sources(ctx)
	if err != nil {
		return d, err
	}
	uid, others, err := o.resolve(ctx, a, sources.NodeName)
	if err != nil {
		return d, err
	}
	d.Others = others
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

// resolve finds the pod o.ref names among the pods of agent a on node:
// NAMESPACE/POD, or POD in the namespace targetNamespace gives (every
// namespace when none) as it is or with the
// node's name appended, as the kubelet names static pods, or a UID. It
// returns the pod's UID and the other pods of that name: a static pod and
// its mirror pod share it, and the static pod is the one the kubelet runs.
func (o *PodOptions) resolve(ctx context.Context, a *client.Agent, node string) (string, []v1alpha1.PodInfo, error) {
	q := v1alpha1.PodQuery{Pods: []string{o.ref}}
	ns, _, qualified := strings.Cut(o.ref, "/")
	if !qualified {
		q.Pods = append(q.Pods, o.ref+"-"+strings.ToLower(node))
		var err error
		if ns, err = o.targetNamespace(false); err != nil {
			return "", nil, err
		}
	}
	if ns != "" {
		q.Namespaces = []string{ns}
	}
	list, err := a.Pods(ctx, q)
	if err != nil {
		return "", nil, err
	}
	matches := list.Items
	if len(matches) == 0 {
		hint := fmt.Sprintf("kubectl podsrc pods -A %s lists its pods", shell.Operands(node))
		if qualified {
			hint = fmt.Sprintf("kubectl podsrc pods -n %s %s lists its pods", shell.Quote(ns), shell.Operands(node))
		}
		// The node's pods, for the close matches; without them, the
		// command that lists them.
		if all, err := a.Pods(ctx, v1alpha1.PodQuery{}); err == nil {
			if m := closeMatches(o.ref, podNames(all.Items, qualified)); len(m) > 0 {
				hint = didYouMean(m)
			}
		}
		if !qualified {
			return "", nil, fmt.Errorf("no pod %q on node %s: no pod has that name, nor that name with the node's appended, nor that UID (%s)", o.ref, node, hint)
		}
		return "", nil, fmt.Errorf("no pod %s on node %s (%s)", o.ref, node, hint)
	}
	pick := 0
	for i, p := range matches {
		if p.Namespace+"/"+p.Name != matches[0].Namespace+"/"+matches[0].Name {
			return "", nil, fmt.Errorf("%q names several pods on node %s: %s/%s and %s/%s; say NAMESPACE/POD", o.ref, node, matches[0].Namespace, matches[0].Name, p.Namespace, p.Name)
		}
		if !p.Mirror && matches[pick].Mirror {
			pick = i
		}
	}
	return string(matches[pick].UID), append(matches[:pick:pick], matches[pick+1:]...), nil
}

// podEvents returns the events the agent a holds that concern the pod uid,
// oldest first, and whether older ones were evicted; the agent sends only
// those (a UID is a value of the pod filter).
func (o *PodOptions) podEvents(ctx context.Context, a *client.Agent, uid string) ([]v1alpha1.Event, bool, error) {
	all, missed, err := o.history(ctx, a, v1alpha1.EventQuery{Pods: []string{uid}})
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
