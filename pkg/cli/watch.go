package cli

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// WatchOptions are the options of kubectl podsrc watch and events: events
// is a watch that ends at --until, now unless given.
type WatchOptions struct {
	nodeOutputOptions
	Display watchDisplayFlags
	Query   EventQueryFlags
	Kubelet kubeletOnly

	// Follow says the stream goes on after the history (watch).
	Follow        bool
	Snapshot      bool
	MaxReconnects int
	// InitialBackoff and MaxBackoff pace reconnections; IdleTimeout ends a
	// silent stream (the agent sends heartbeats every few seconds).
	InitialBackoff, MaxBackoff, IdleTimeout time.Duration

	query   v1alpha1.EventQuery
	printer printers.WatchPrinter
	// printed counts the events printed, so that events says when there
	// were none, and hints which pod --pod may have meant then.
	printed atomic.Int64
	hints   *podHints
}

// newWatchOptions returns the defaults of watch (follow) or events.
func newWatchOptions(common *CommonOptions, follow bool) *WatchOptions {
	f := printers.NewPrintFlags()
	f.Objects = true
	return &WatchOptions{nodeOutputOptions: nodeOutputOptions{CommonOptions: common, PrintFlags: f}, Follow: follow, MaxReconnects: 10,
		InitialBackoff: 500 * time.Millisecond, MaxBackoff: 10 * time.Second, IdleTimeout: 30 * time.Second}
}

// NewCmdWatch returns the watch command.
func NewCmdWatch(common *CommonOptions) *cobra.Command {
	o := newWatchOptions(common, true)
	cmd := &cobra.Command{
		Use:   "watch NODE...",
		Short: "Follow the kubelet's pod config notifications and PLEG events on nodes",
		Long: longDesc(`
			Follow, like kubectl get -w, what the kubelet of each node is told by its
			pod sources (ADD, UPDATE, DELETE, REMOVE, RECONCILE, SET) and what its
			PLEG reports (ContainerStarted, ContainerDied, ...), as they happen.
			kubectl podsrc events prints the history and exits; watch takes the same
			flags (--since, --tail, --until and the filters) and keeps following,
			until --until when it is given.

			When a stream drops, watch reconnects and resumes after the last event it
			printed: no event is printed twice, and events the agent no longer has
			are printed as a GAP line rather than silently lost. An agent restart is
			printed as a RESET line. Reconnections are reported on stderr.

			The KUBELET column says what the kubelet's sync loop does with each event,
			in one word: add, update, remove, reconcile (the handler it calls), sync
			(a PLEG event it syncs the pod for) or ignored, with the reason in DETAIL
			(a ContainerRemoved is not sync-worthy; a pod not in its pod manager).
			-o wide names the handler (HandlePodAdditions, ...) in a HANDLER column;
			--handler keeps the events of some handlers. A ContainerDied's DETAIL
			lists the exited containers the kubelet then removes (removes=...).

			A config event of a static pod names its manifest's path on the node, or
			the static pod URL (credentials masked): in an ORIGIN column with -o wide,
			in DETAIL ("from ...") otherwise, unless DETAIL has an admission verdict
			or a reason to say; -o json has it as pods[].origin. --origin keeps the
			events of some manifests or URLs.

			Like the kubelet, watch and events leave out the PLEG events it does not
			send (ContainerChanged, events its full PLEG channel dropped); the agent
			keeps them, and --all-events shows them, or --type for the types it names.

			-o json prints one JSON message per line (events, gaps and resets, each
			with the node); watch keeps one stream open per node.`),
		Example: templates.Examples(`
			# Follow one node
			kubectl podsrc watch node-1

			# Start with the current state of the pods in namespace web, then follow
			# their PLEG events only
			kubectl podsrc watch node-1 --snapshot -n web --kind=pleg

			# The last 20 events of the pods labelled app=web, then follow them
			kubectl podsrc watch node-1 -l app=web --tail=20

			# Replay the last 10 minutes of static pod file notifications on all nodes, then follow
			kubectl podsrc watch --all-nodes --since=10m --source=file

			# The notifications of one manifest and of the backup beside it
			kubectl podsrc watch node-1 --origin=/etc/kubernetes/manifests/web.yaml --origin=/etc/kubernetes/manifests/web.yaml.bak

			# The PLEG events the kubelet's sync loop ignores, and why
			kubectl podsrc watch node-1 --kind=pleg --handler=ignored

			# Resume after event 1234, as JSON lines
			kubectl podsrc watch node-1 --since=1234 -o json`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	o.addFlags(cmd, "Default: new events only.")
	cmd.Flags().BoolVar(&o.Snapshot, "snapshot", o.Snapshot, "Start with the current state of the pods that -n, -l and --pod select, and --source when it names one source; --kind, --op, --type, --origin and --container select events only.")
	return cmd
}

// addFlags binds the flags events and watch share.
func (o *WatchOptions) addFlags(cmd *cobra.Command, sinceHelp string) {
	o.Nodes.Streaming, o.Nodes.Follow = true, o.Follow
	o.Nodes.PodSelector = &o.Query.Selector
	o.nodeOutputOptions.addFlags(cmd)
	o.Display.AddFlags(cmd)
	o.Query.AddFlags(cmd, sinceHelp)
	_ = cmd.RegisterFlagCompletionFunc("pod", completePodFlag(o.CommonOptions))
	o.Kubelet.AddFlags(cmd)
	cmd.Flags().IntVar(&o.MaxReconnects, "max-reconnects", o.MaxReconnects, "Give a node up after this many failed reconnections in a row (-1: never).")
	cmd.Flags().DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Drop a node's stream and reconnect when nothing, not even a heartbeat (the agent sends one every few seconds), arrived for this long; at least twice the agent's heartbeat.")
}

// Complete builds the query and fills in the nodes and the printer.
func (o *WatchOptions) Complete(args []string) error {
	o.Nodes.Names = args
	ns, err := o.targetNamespace(o.Query.AllNamespaces)
	if err != nil {
		return err
	}
	q, err := o.Query.ToQuery(ns, o.Now())
	if err != nil {
		return err
	}
	q.Snapshot = o.Snapshot
	if !o.Follow {
		if q.Since == nil {
			// The whole history the agent keeps.
			q.Since = v1alpha1.SeqMark(0)
		}
		if q.Until == nil {
			q.Until = v1alpha1.AgeMark(0)
		}
	}
	o.query = q
	if !o.Follow {
		o.hints = newPodHints(o.Query.Pods)
	}
	display, err := o.Display.ToDisplay(o.Now(), severalNodes(&o.Nodes, o.CommonOptions))
	if err != nil {
		return err
	}
	var p printers.WatchPrinter
	if o.Follow {
		p, err = o.PrintFlags.ToWatchPrinterFor(o.Out, display)
	} else {
		p, err = o.PrintFlags.ToEventsPrinter(o.Out, display, o.printBudget())
	}
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
	if o.IdleTimeout < 2*v1alpha1.DefaultHeartbeat {
		return fmt.Errorf("--idle-timeout %s: want at least %s, twice the agent's heartbeat (%s), or a quiet stream is dropped between heartbeats", o.IdleTimeout, 2*v1alpha1.DefaultHeartbeat, v1alpha1.DefaultHeartbeat)
	}
	if o.Snapshot && (o.Query.Since != "" || o.Query.Tail > 0) {
		return fmt.Errorf("--snapshot starts with the pods' state: --since and --tail do not apply")
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// Run follows the streams until the context ends, every stream reached its
// end, or every node failed.
func (o *WatchOptions) Run(ctx context.Context) error {
	// Each node's error is printed as it fails (agentCall).
	results, err := agentCall(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent, v NodeVersion) (struct{}, error) {
		return struct{}{}, o.follow(ctx, a, v)
	})
	if err != nil {
		return err
	}
	if l, ok := o.printer.(*printers.ListWatch); ok {
		if err := l.Flush(); err != nil {
			return fmt.Errorf("printing: %w", err)
		}
	}
	if _, failed := splitResults(results); failed {
		return errFailed
	}
	if !o.Follow && o.printed.Load() == 0 && ctx.Err() == nil {
		namespace := ""
		if len(o.query.Namespaces) == 1 {
			namespace = o.query.Namespaces[0]
		}
		printers.NoResources(o.ErrOut, o.Nodes.scope(o.CommonOptions, namespace))
		o.hints.print(o.CommonOptions)
	}
	return nil
}

// follow follows the stream of one node's agent; v is what its /version
// said, if it answered. watch's first message must arrive by v.answerBy;
// events reads its history within --request-timeout (and the fan-out's
// --node-timeout).
func (o *WatchOptions) follow(ctx context.Context, a *client.Agent, v NodeVersion) error {
	if !o.Follow {
		if d, err := o.requestTimeout(); err == nil && d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, d, &client.Error{Reason: client.ReasonTimeout, Err: context.DeadlineExceeded,
				Message: fmt.Sprintf("%s did not send its history within --request-timeout=%s; raise it if the node is only slow (0: no limit)", o.agentLabel(a.Node), d)})
			defer cancel()
		}
	}
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
	if !v.answerBy.IsZero() {
		w.AnswerTimeout = max(time.Until(v.answerBy), time.Millisecond)
	}
	printed := 0
	err := w.Run(ctx, func(m *v1alpha1.StreamMessage) error {
		if m.Type == v1alpha1.MessageEvent {
			if !o.Kubelet.Shows(o.query, m.Event) {
				return nil
			}
			o.printed.Add(1)
			printed++
		}
		return o.printer.PrintMessage(label, m)
	})
	if err == nil && !o.Follow && printed == 0 && ctx.Err() == nil {
		o.hints.look(ctx, a, o.query.Namespaces)
	}
	if errors.Is(err, client.ErrIdle) {
		return fmt.Errorf("%w; raise --idle-timeout if the path to the agent is only slow", err)
	}
	if errors.Is(err, client.ErrNoAnswer) {
		_, flag := o.answerBound()
		return o.noAnswerError(a.Node, flag, err)
	}
	if err == nil && !o.Follow && ctx.Err() != nil {
		// The history was cut short: the bound, not the end, stopped it.
		return context.Cause(ctx)
	}
	return err
}
