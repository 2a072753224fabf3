package cli

import (
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/manifests"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/deploy"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/printers"
	"github.com/podsrc/podsrc/pkg/redact"
)

// pollInterval is how often deploy and undeploy look at what they wait for.
const pollInterval = 2 * time.Second

// DeployOptions are the options of kubectl podsrc deploy.
type DeployOptions struct {
	*CommonOptions
	Image           string
	APIServerURL    string
	NodeSelector    string
	StaticPodPath   string
	RuntimeEndpoint string
	DefaultLayout   string
	AllowHostPaths  []string
	AllowedCIDRs    []string
	PrintOnly       bool
	Wait            bool
	Timeout         time.Duration

	namespace string
	overrides deploy.Overrides
	// cidrsGiven says --allowed-cidrs was given.
	cidrsGiven bool
}

// NewCmdDeploy returns the deploy command.
func NewCmdDeploy(common *CommonOptions) *cobra.Command {
	o := &DeployOptions{CommonOptions: common, Image: client.AgentImageRepository + ":" + version.Version, Wait: true, Timeout: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy the podsrc agent to the cluster's nodes, fitted to each node's layout",
		Long: longDesc(`
			Deploy podsrc-agent (manifests/daemonset.yaml, built into this plugin)
			to the cluster's Linux nodes and wait until every agent is ready.

			Each node's layout (static pod path, static pod URL and headers, check
			frequencies, CRI socket) is read from its kubelet's running configuration
			(/configz through the API server's node proxy) with your credentials
			(get nodes/proxy); the agents themselves never need that permission. An
			agent build reproduces one kubelet minor, so each node gets the agent of
			its kubelet's minor (status.nodeInfo.kubeletVersion): the image
			<--image>-kubelet1.N. Nodes that share a layout and a kubelet minor share
			a DaemonSet. The most common one's DaemonSet, podsrc-agent, also takes
			every node that is added later (--default-layout chooses another, and
			settles a tie: no node's answer decides it); the others are pinned to
			their nodes by name. Run deploy again after adding nodes of another layout or
			upgrading kubelets. Nodes whose kubelet podsrc does not reproduce get no
			agent, and a warning names them.

			When a kubelet's /configz cannot be read, the layout of the distribution
			the node looks like (kubeadm, kind, minikube, k3s, RKE2, CRI-O,
			cri-dockerd) is assumed and a warning says so; --static-pod-path and
			--runtime-endpoint override it for every node. The agent mounts a node's
			static pod path and CRI socket directory only where kubelets keep them
			(/etc/kubernetes, /var/lib/kubelet, /run/containerd, CRI-O's, k3s's,
			RKE2's, k0s's, MicroK8s's): a node whose /configz names another path is
			refused unless you pass that path with --allow-host-path or as an
			override.

			A static pod URL and its headers, which may carry credentials, go into a
			Secret of the layout, mounted into its agents, never into the
			DaemonSet's arguments; --print-only prints that Secret with its
			credentials masked.

			The agents answer only the API server's addresses (the EndpointSlices of
			Service kubernetes in namespace default), from which its node proxy
			comes, and the kubelet's probes: no other pod or host on the nodes'
			network can read or tie them up. --allowed-cidrs names other peers, such
			as a konnectivity agent's; --allowed-cidrs=0.0.0.0/0,::/0 lets every
			peer in.

			Objects are applied server-side (field manager ` + deploy.FieldManager + `): a
			second deploy changes nothing, a new --image rolls out in place. Every
			write is checked first, so a caller without the rights changes nothing.`),
		Example: templates.Examples(`
			# Deploy the agent of this plugin's version to every node
			kubectl podsrc deploy

			# What would be applied, for GitOps
			kubectl podsrc deploy --print-only > podsrc.yaml

			# Your own image, on worker nodes only, reaching the API server at its
			# own address rather than through the kubernetes Service
			kubectl podsrc deploy --image=registry.example/podsrc-agent:dev \
			  --node-selector='!node-role.kubernetes.io/control-plane' \
			  --api-server-url=https://10.0.0.1:6443`),
		Args: cobra.NoArgs,
		RunE: runOptions(o),
	}
	f := cmd.Flags()
	f.StringVar(&o.Image, "image", o.Image, "The agent image, by tag: the nodes of kubelet minor 1.N run this tag with -kubelet1.N appended.")
	f.StringVar(&o.APIServerURL, "api-server-url", o.APIServerURL, "The https URL at which the agents reach the API server, instead of the in-cluster kubernetes Service (for nodes without a working service network). Its serving certificate must name the host.")
	f.StringVar(&o.NodeSelector, "node-selector", o.NodeSelector, "Deploy to the nodes matching this label selector only.")
	f.StringVar(&o.StaticPodPath, "static-pod-path", o.StaticPodPath, "The kubelet's staticPodPath on every selected node, overriding what /configz says or the assumed layout (\"\" for none).")
	f.StringVar(&o.RuntimeEndpoint, "runtime-endpoint", o.RuntimeEndpoint, "The CRI socket (unix:///path) on every selected node, overriding what /configz says or the assumed layout (\"\" turns the agent's PLEG off).")
	f.StringVar(&o.DefaultLayout, "default-layout", o.DefaultLayout, "A node whose layout and kubelet minor the DaemonSet podsrc-agent, which also runs on nodes added later, should have. Without it, the layout of the most nodes; when layouts tie for the most, deploy asks for it.")
	f.StringArrayVar(&o.AllowHostPaths, "allow-host-path", nil, "A host path (with what lies under it) the agent may mount besides the kubelet locations (/etc/kubernetes, /var/lib/kubelet, /run/containerd, k3s's, RKE2's, k0s's, MicroK8s's ...); repeat for more. deploy refuses a node whose /configz names another.")
	f.StringSliceVar(&o.AllowedCIDRs, "allowed-cidrs", nil, "The peers the agents answer (CIDRs or addresses), instead of the API server's addresses (the EndpointSlices of Service kubernetes in namespace default), from which its node proxy comes. Widen it when the proxy comes from elsewhere (a konnectivity agent); --allowed-cidrs=0.0.0.0/0,::/0 lets every peer in.")
	f.BoolVar(&o.PrintOnly, "print-only", o.PrintOnly, "Print the objects that would be applied, as YAML, and change nothing.")
	f.BoolVar(&o.Wait, "wait", o.Wait, "Wait until every agent is ready, and say why for those that are not.")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long --wait waits.")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		if cmd.Flags().Changed("static-pod-path") {
			o.overrides.StaticPodPath = &o.StaticPodPath
		}
		if cmd.Flags().Changed("runtime-endpoint") {
			o.overrides.RuntimeEndpoint = &o.RuntimeEndpoint
		}
		o.overrides.AllowHostPaths = o.AllowHostPaths
		o.cidrsGiven = cmd.Flags().Changed("allowed-cidrs")
	}
	return cmd
}

// deployNamespace is -n/--namespace when given, else the agent's namespace.
func (o *CommonOptions) deployNamespace() string {
	if o.ConfigFlags.Namespace != nil && *o.ConfigFlags.Namespace != "" {
		return *o.ConfigFlags.Namespace
	}
	return client.AgentNamespace
}

// Complete fills in the namespace.
func (o *DeployOptions) Complete([]string) error {
	o.namespace = o.deployNamespace()
	return nil
}

// Validate checks the options.
func (o *DeployOptions) Validate() error {
	if o.Direct() {
		return fmt.Errorf("--agent-url talks to one agent; deploy needs the cluster")
	}
	if o.Image == "" {
		return fmt.Errorf("--image must not be empty")
	}
	if _, err := deploy.ImageFor(o.Image, kubeletminor.Supported[0]); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v: want a positive duration", o.Timeout)
	}
	if o.overrides.RuntimeEndpoint != nil && *o.overrides.RuntimeEndpoint != "" && !strings.HasPrefix(*o.overrides.RuntimeEndpoint, "unix:///") {
		return fmt.Errorf("--runtime-endpoint %q: want unix:///path", *o.overrides.RuntimeEndpoint)
	}
	if err := deploy.ParseCIDRs("allowed-cidrs", o.AllowedCIDRs); err != nil {
		return err
	}
	for _, p := range o.AllowHostPaths {
		if !path.IsAbs(p) {
			return fmt.Errorf("--allow-host-path %q: want an absolute path", p)
		}
	}
	return nil
}

// Run deploys.
func (o *DeployOptions) Run(ctx context.Context) error {
	c, err := o.deployCluster()
	if err != nil {
		return err
	}
	nodes, err := deploy.ListNodes(ctx, c.Client, o.NodeSelector)
	if err != nil {
		return client.ClusterError(err, "listing the nodes to deploy to")
	}
	if len(nodes) == 0 {
		fmt.Fprintf(o.ErrOut, "Warning: no Linux node matches --node-selector %q yet; the agent goes to such nodes when they join, with the layout of a kubeadm node\n", o.NodeSelector)
	}
	layouts, err := deploy.Discover(ctx, c.Client, nodes, o.overrides)
	if err != nil {
		return err
	}
	o.warnAssumed(layouts)
	groups, unsupported, err := deploy.GroupNodes(layouts, o.overrides.Apply(deploy.DefaultLayout()), o.DefaultLayout)
	if err != nil {
		return err
	}
	o.warnUnsupported(unsupported)
	var excluded []string
	for _, n := range unsupported {
		excluded = append(excluded, n.Node)
	}
	cidrs, cidrsFrom, err := o.allowedCIDRs(ctx, c)
	if err != nil {
		return err
	}
	objs, err := deploy.Render(manifests.DaemonSet, deploy.RenderOptions{
		Namespace: o.namespace, Image: o.Image, APIServerURL: o.APIServerURL, NodeSelector: o.NodeSelector, Groups: groups, Excluded: excluded,
		AllowedCIDRs: cidrs, MaskCredentials: o.PrintOnly,
	})
	if err != nil {
		return err
	}
	// With --print-only, stdout is the manifest: the summary goes to
	// stderr.
	summary := o.Out
	if o.PrintOnly {
		summary = o.ErrOut
	}
	r, err := o.summarize(summary, groups, cidrs, cidrsFrom)
	if err != nil {
		return err
	}
	if o.PrintOnly {
		return deploy.WriteYAML(o.Out, objs)
	}
	sort.Strings(r.Nodes)
	if err := c.Apply(ctx, objs, o.namespace, o.Out, o.ErrOut); err != nil {
		return err
	}
	if !o.Wait {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := c.Wait(wctx, r, pollInterval, o.Out); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "podsrc is ready; try: kubectl podsrc sources --all-nodes\n")
	return nil
}

// summarize prints each group's DaemonSet, layout, image and nodes, where
// its static pod URL's credentials are, and which peers the agents answer,
// all of it escaped and masked (a node's /configz says what it likes); it
// returns the rollout to await, so that each group's image is derived once.
func (o *DeployOptions) summarize(w io.Writer, groups []deploy.Group, cidrs []string, cidrsFrom string) (deploy.Rollout, error) {
	r := deploy.Rollout{Namespace: o.namespace, Images: map[string]string{}, AgentSelector: client.AgentSelector, AgentPort: o.AgentPort}
	for _, g := range groups {
		nodes := strings.Join(g.Nodes, ", ")
		if g.Default {
			nodes += " and nodes added later"
			if len(g.Nodes) == 0 {
				nodes = "nodes added later"
			}
		}
		image, err := deploy.ImageFor(o.Image, g.Minor)
		if err != nil {
			return r, err
		}
		name := deploy.DaemonSetName(g)
		printers.PrintLine(w, "layout %s (%s), kubelet %s, image %s: %s", name, g.Layout, g.Minor, image, nodes)
		if g.Layout.StaticPodURL != "" {
			secret := deploy.URLSecretName(g)
			printers.PrintLine(w, "  its static pod URL and headers are in Secret %s in namespace %s, not in the DaemonSet's arguments", secret, o.namespace)
			if o.PrintOnly {
				printers.PrintLine(w, "  Secret %s is printed with its credentials masked (%s): fill them in from the node's kubelet configuration before applying it", secret, redact.Masked)
			}
		}
		r.DaemonSets = append(r.DaemonSets, name)
		r.Nodes = append(r.Nodes, g.Nodes...)
		for _, n := range g.Nodes {
			r.Images[n] = image
		}
	}
	if len(cidrs) == 0 {
		printers.PrintLine(w, "agents answer every peer (--allowed-cidrs is empty): any host or pod that reaches a node's address can read them")
	} else {
		printers.PrintLine(w, "agents answer only %s (%s) and the probes; if kubectl podsrc cannot reach them (the API server's node proxy comes from another address, as through a konnectivity agent), deploy again with --allowed-cidrs naming where it comes from, or --allowed-cidrs=0.0.0.0/0,::/0 to let every peer in",
			strings.Join(cidrs, ", "), cidrsFrom)
	}
	return r, nil
}

// allowedCIDRs are the peers the agents answer: --allowed-cidrs when given
// (none lets every peer in), else the API server's addresses; and where they
// come from, for the summary.
func (o *DeployOptions) allowedCIDRs(ctx context.Context, c *deploy.Cluster) ([]string, string, error) {
	if o.cidrsGiven {
		return o.AllowedCIDRs, "--allowed-cidrs", nil
	}
	cidrs, err := deploy.ControlPlaneCIDRs(ctx, c.Client)
	if err != nil {
		return nil, "", fmt.Errorf("%w; pass --allowed-cidrs with the addresses the API server reaches nodes from, or --allowed-cidrs=0.0.0.0/0,::/0 to let every peer reach the agents", err)
	}
	return cidrs, "the API server's addresses, from the EndpointSlices of Service kubernetes in namespace default", nil
}

// warnAssumed says on stderr, once per distribution and reason, for which
// nodes a layout was assumed and how to override it.
func (o *DeployOptions) warnAssumed(layouts []deploy.NodeLayout) {
	type key struct{ assumed, reason string }
	byKey := map[key][]string{}
	var keys []key
	for _, l := range layouts {
		if l.Assumed == "" {
			continue
		}
		k := key{l.Assumed, reasonKind(l.Reason)}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], l.Node)
	}
	for _, k := range keys {
		printers.PrintLine(o.ErrOut, "Warning: could not read the kubelet configuration of %s (%s); assumed the layout of %s. If that is wrong, pass --static-pod-path and --runtime-endpoint.", nodeList(byKey[k]), k.reason, k.assumed)
	}
}

// warnUnsupported names, on stderr, the nodes whose kubelet is of a minor
// podsrc does not reproduce, which get no agent, one warning per version.
func (o *DeployOptions) warnUnsupported(nodes []deploy.NodeLayout) {
	byVersion := map[string][]string{}
	var versions []string
	for _, n := range nodes {
		if byVersion[n.Kubelet] == nil {
			versions = append(versions, n.Kubelet)
		}
		byVersion[n.Kubelet] = append(byVersion[n.Kubelet], n.Node)
	}
	for _, v := range versions {
		nodes := byVersion[v]
		if _, err := kubeletminor.Of(v); err != nil {
			// Not a version podsrc lacks: one it cannot read, as on a
			// node whose kubelet has not reported yet.
			printers.PrintLine(o.ErrOut, "Warning: %s %s no kubelet version podsrc can read (status.nodeInfo.kubeletVersion %q); no agent is deployed there: run kubectl podsrc deploy again once 'kubectl get nodes %s' shows it.",
				nodeList(nodes), plural(nodes, "reports", "report"), v, strings.Join(nodes, " "))
			continue
		}
		printers.PrintLine(o.ErrOut, "Warning: %s %s kubelet %q, which podsrc does not reproduce (kubelet %s to %s); no agent is deployed there (a kubectl-podsrc release that reproduces it would deploy one).",
			nodeList(nodes), plural(nodes, "runs", "run"), v, kubeletminor.Supported[0], kubeletminor.Supported[len(kubeletminor.Supported)-1])
	}
}

// reasonKind shortens a /configz error to what it says, without the
// node's name, so that nodes with the same trouble share a warning.
func reasonKind(reason string) string {
	if _, after, ok := strings.Cut(reason, "configz: "); ok {
		return after
	}
	return reason
}

// deployCluster returns the clients deploy and undeploy write through.
func (o *CommonOptions) deployCluster() (*deploy.Cluster, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the cluster's configuration: %w", err)
	}
	cs, err := o.Clientset()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("making a client of the cluster: %w", err)
	}
	mapper, err := o.ConfigFlags.ToRESTMapper()
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's API resources: %w", err)
	}
	return &deploy.Cluster{Client: cs, Dynamic: dyn, Mapper: mapper}, nil
}
