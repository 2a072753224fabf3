package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// WatchOptions are the options of kubectl podsrc watch.
type WatchOptions struct {
	*CommonOptions
	Nodes      NodeFlags
	PrintFlags *printers.PrintFlags
	Display    watchDisplayFlags

	Since         string
	Snapshot      bool
	Kind          string
	Source        string
	MaxReconnects int
	// InitialBackoff and MaxBackoff pace reconnections; IdleTimeout ends a
	// silent stream (the agent sends heartbeats every few seconds).
	InitialBackoff, MaxBackoff, IdleTimeout time.Duration

	namespace string
	query     v1alpha1.EventQuery
	printer   printers.WatchPrinter
}

// NewCmdWatch returns the watch command.
func NewCmdWatch(common *CommonOptions) *cobra.Command {
	o := &WatchOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags(), MaxReconnects: 10,
		InitialBackoff: 500 * time.Millisecond, MaxBackoff: 10 * time.Second, IdleTimeout: 30 * time.Second}
	cmd := &cobra.Command{
		Use:   "watch NODE...",
		Short: "Follow the kubelet's pod config notifications and PLEG events on nodes",
		Long: longDesc(`
			Follow, like kubectl get -w, what the kubelet of each node is told by its
			pod sources (ADD, UPDATE, DELETE, REMOVE, RECONCILE, SET) and what its
			PLEG reports (ContainerStarted, ContainerDied, ...), as they happen.

			When a stream drops, watch reconnects and resumes after the last event it
			printed: no event is printed twice, and events the agent no longer has
			are printed as a GAP line rather than silently lost. An agent restart is
			printed as a RESET line. Reconnections are reported on stderr.

			-o json prints one JSON message per line (events, gaps and resets, each
			with the node); watch keeps one stream open per node.`),
		Example: templates.Examples(`
			# Follow one node
			kubectl podsrc watch node-1

			# Start with the pods' current state, then follow PLEG events only
			kubectl podsrc watch node-1 --snapshot --kind=pleg

			# Replay the last 10 minutes of static pod file notifications on all nodes
			kubectl podsrc watch --all-nodes --since=10m --source=file

			# Resume after event 1234, as JSON lines
			kubectl podsrc watch node-1 --since=1234 -o json`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.Nodes.Streaming = true
	o.Nodes.AddFlags(cmd)
	o.PrintFlags.AddFlags(cmd)
	o.Display.AddFlags(cmd)
	cmd.Flags().StringVar(&o.Since, "since", o.Since, "Start after this event sequence number, or with the events of this last while (a duration such as 5m). Default: new events only.")
	cmd.Flags().BoolVar(&o.Snapshot, "snapshot", o.Snapshot, "Start with the current state of the pods.")
	cmd.Flags().StringVar(&o.Kind, "kind", o.Kind, "Only events of this kind: config or pleg.")
	cmd.Flags().StringVar(&o.Source, "source", o.Source, "Only config events of this source: file, http or api.")
	cmd.Flags().IntVar(&o.MaxReconnects, "max-reconnects", o.MaxReconnects, "Give a node up after this many failed reconnections in a row (-1: never).")
	cmd.Flags().DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Drop a node's stream and reconnect when nothing, not even a heartbeat (the agent sends one every few seconds), arrived for this long.")
	_ = cmd.RegisterFlagCompletionFunc("source", completeSources)
	_ = cmd.RegisterFlagCompletionFunc("kind", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{v1alpha1.EventKindConfig, v1alpha1.EventKindPLEG}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Complete parses --since and fills in the nodes and the printer.
func (o *WatchOptions) Complete(args []string) error {
	o.Nodes.Names = args
	if o.ConfigFlags.Namespace != nil {
		o.namespace = *o.ConfigFlags.Namespace
	}
	o.query = v1alpha1.EventQuery{Snapshot: o.Snapshot}
	if o.Kind != "" {
		o.query.Kinds = []string{o.Kind}
	}
	if o.Source != "" {
		o.query.Sources = []string{o.Source}
	}
	if o.namespace != "" {
		o.query.Namespaces = []string{o.namespace}
	}
	if o.Since != "" {
		m, err := v1alpha1.ParseMark(o.Since)
		if err != nil {
			return fmt.Errorf("--since %w", err)
		}
		o.query.Since = m
	}
	display, err := o.Display.ToDisplay(o.Now(), severalNodes(&o.Nodes, o.CommonOptions))
	if err != nil {
		return err
	}
	p, err := o.PrintFlags.ToWatchPrinterFor(o.Out, display)
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *WatchOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	switch o.Kind {
	case "", v1alpha1.EventKindConfig, v1alpha1.EventKindPLEG:
	default:
		return fmt.Errorf("--kind %q: want config or pleg", o.Kind)
	}
	if err := validateSource(o.Source); err != nil {
		return err
	}
	if o.IdleTimeout <= 0 {
		return fmt.Errorf("--idle-timeout %s: want a positive duration", o.IdleTimeout)
	}
	if o.Snapshot && o.Since != "" {
		return fmt.Errorf("--snapshot and --since exclude each other")
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// Run follows the streams until the context ends or every node failed.
func (o *WatchOptions) Run(ctx context.Context) error {
	// Each node's error is printed as it fails (agentCall).
	results, err := agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent, v NodeVersion) (struct{}, error) {
		return struct{}{}, o.follow(ctx, a, v)
	})
	if err != nil {
		return err
	}
	if _, failed := splitResults(results); failed {
		return errFailed
	}
	return nil
}

// follow follows the stream of one node's agent; v is what its /version
// said, if it answered.
func (o *WatchOptions) follow(ctx context.Context, a *client.Agent, v NodeVersion) error {
	label := a.Node
	if label == "" {
		// --agent-url: the agent names its node.
		label = v.Node
	}
	if label == "" {
		label = o.AgentURL
	}
	w := &client.Watcher{
		Open:           a.Events,
		Query:          o.query,
		InitialBackoff: o.InitialBackoff,
		MaxBackoff:     o.MaxBackoff,
		MaxAttempts:    o.MaxReconnects,
		IdleTimeout:    o.IdleTimeout,
		Notify: func(r client.Reconnect) {
			resume := "starting anew"
			if r.Resume {
				resume = fmt.Sprintf("resuming after event %d", r.Since)
			}
			bound := ""
			if r.MaxAttempts >= 0 {
				bound = fmt.Sprintf("/%d", r.MaxAttempts)
			}
			printers.PrintLine(o.ErrOut, "node %q: %v; reconnecting in %s (attempt %d%s), %s", label, r.Err, r.Delay.Round(time.Millisecond), r.Attempt, bound, resume)
		},
	}
	return w.Run(ctx, func(m *v1alpha1.StreamMessage) error {
		return o.printer.PrintMessage(label, m)
	})
}
