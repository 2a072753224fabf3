package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
	"github.com/podsrc/podsrc/pkg/why"
)

// WhyOptions are the options of kubectl podsrc why.
type WhyOptions struct {
	*CommonOptions
	PrintFlags *printers.PrintFlags
	// All reports every pod of the node that is not ok.
	All bool

	// analyze analyzes one pod's facts within ctx, the node's deadline;
	// why.Analyze unless a test sets it.
	analyze func(ctx context.Context, f why.Facts) v1alpha1.WhyReport

	node    string
	target  why.Target
	printer printers.Printer
}

// newWhyOptions returns the defaults of why on common.
func newWhyOptions(common *CommonOptions) *WhyOptions {
	o := &WhyOptions{CommonOptions: common, PrintFlags: printers.NewPrintFlags(),
		analyze: func(_ context.Context, f why.Facts) v1alpha1.WhyReport { return why.Analyze(f) }}
	// why --all prints a list; one report is printed as it is.
	o.PrintFlags.List = true
	return o
}

// NewCmdWhy returns the why command.
func NewCmdWhy(common *CommonOptions) *cobra.Command {
	o := newWhyOptions(common)
	cmd := &cobra.Command{
		Use:   "why [NODE] (TARGET | --all)",
		Short: "Explain why a pod does not run on a node as configured",
		Long: longDesc(`
			Walk the kubelet's pipeline for one pod on a node and give every stage a
			verdict (ok, failing, unknown) with its evidence, highlight the first
			failing stage and suggest a fix.

			A static pod from a file goes through the stages file, decode, shadow,
			config, mirror, sandbox, containers; one from the static pod URL through
			url, config, mirror, sandbox, containers; a pod of the API server through
			binding, api-source, config, sandbox, containers.

			TARGET is the manifest's absolute path on the node, a pod's UID,
			NAMESPACE/POD, or POD:
			looked for among the node's pods in -n's namespace, or the one the
			kubeconfig's context sets, or else in every namespace, also with the
			node's name appended as the kubelet names static pods, then among the
			rejected manifests by file name, else taken as a pod of the static pod URL
			when its last fetch failed or none succeeded yet, or else of the API
			server (in namespace default when neither TARGET, -n nor the context gives
			one). With
			--agent-url NODE may be left out; a NODE named must be the agent's.

			The agent gives the node's side; the mirror pod, the pod of the API server,
			the node and the Events about them are read from the API server with your
			credentials. A stage that cannot be known (no permission, no data, an
			earlier stage that is not ok) is unknown and says why.

			Exit status: 0 when every stage is ok (the pod runs as configured), 2 when a
			stage fails, 3 when none fails but some are unknown, 1 when the command
			itself fails. With --all: one line per pod of the node that is not ok, and
			the same statuses for the worst of them.

			The agent's answers and every pod's lookups share --node-timeout: when it
			passes, why fails with exit status 1 and names the flag to raise.`),
		Example: templates.Examples(`
			# Why the static pod of this manifest does not run
			kubectl podsrc why node-1 /etc/kubernetes/manifests/kube-apiserver.yaml

			# An API pod, as JSON for a script
			kubectl podsrc why node-1 default/web -o json

			# Every pod of the node that is not ok
			kubectl podsrc why node-1 --all`),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if o.All && (len(args) > 0 || common.Direct()) {
				// why --all takes the node only.
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeNodeThenPod(common)(cmd, args, toComplete)
		},
		RunE: runOptions(o),
	}
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().BoolVar(&o.All, "all", o.All, "Report every pod of the node that is not ok, one line each.")
	return cmd
}

// Complete reads NODE and TARGET and builds the printer.
func (o *WhyOptions) Complete(args []string) error {
	want := 2
	if o.All {
		want = 1
	}
	if o.Direct() && len(args) == want-1 {
		// --agent-url is the node.
		args = append([]string{""}, args...)
	}
	if len(args) != want {
		if o.All {
			return fmt.Errorf("why --all takes one NODE, got %d arguments", len(args))
		}
		return fmt.Errorf("why takes NODE and TARGET (POD, NAMESPACE/POD or a manifest path), got %d arguments", len(args))
	}
	o.node = args[0]
	if !o.All {
		ns, err := o.targetNamespace(false)
		if err != nil {
			return err
		}
		t, err := why.ParseTarget(args[1], ns)
		if err != nil {
			return err
		}
		o.target = t
	}
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	if g, ok := p.(*printers.GenericPrinter); ok {
		// One report is printed as it is; --all's in a List.
		g.Single = !o.All
	}
	o.printer = p
	return nil
}

// Validate checks the options.
func (o *WhyOptions) Validate() error {
	if o.node == "" && !o.Direct() {
		return fmt.Errorf("NODE is empty")
	}
	return o.CommonOptions.Validate()
}

// Run gathers the facts, analyzes them and prints the report; its error
// carries the exit status of the verdict.
func (o *WhyOptions) Run(ctx context.Context) error {
	nf := &NodeFlags{Names: []string{o.node}, MaxConcurrency: 1}
	// timedOut says that --node-timeout ended the call (not a request's
	// own timeout); the call is done when agentCall returns.
	timedOut := false
	results, err := agentCall(ctx, o.CommonOptions, nf, func(ctx context.Context, a *client.Agent, _ NodeVersion) (p printers.Printable, err error) {
		defer func() {
			timedOut = err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)
		}()
		g, err := o.newGatherer(ctx, a)
		if err != nil {
			return nil, err
		}
		if o.All {
			rs, err := g.all(ctx)
			if err != nil {
				return nil, err
			}
			return printers.WhyReports{Reports: rs}, nil
		}
		r, err := g.report(ctx, o.target)
		if err != nil {
			return nil, err
		}
		return printers.Why{Report: r}, nil
	})
	if err != nil {
		return err
	}
	if err := results[0].Err; err != nil {
		if timedOut {
			return o.timeoutError(err)
		}
		var nowhere nowhereError
		if errors.As(err, &nowhere) {
			return err
		}
		return nodeError(results[0].Node, err)
	}
	p := results[0].Value
	if err := o.printer.Print(p, o.Out); err != nil {
		return fmt.Errorf("printing: %w", err)
	}
	return verdictStatus(p)
}

// timeoutError says that why ran out of time on the node: the agent's
// answers and every pod's lookups share --node-timeout, and a verdict on
// lookups the deadline cut short would be a guess.
func (o *WhyOptions) timeoutError(err error) error {
	node := o.node
	if node == "" {
		node = o.AgentURL
	}
	var ce *client.Error
	if errors.As(err, &ce) && ce.Reason == client.ReasonTimeout && ce.Err != nil {
		// Its message blames the agent alone.
		err = ce.Err
	}
	return fmt.Errorf("why did not finish on node %s within --node-timeout=%s (the agent's answers and the API server's lookups of every pod share it): raise --node-timeout, or 0 for no limit: %w", node, o.NodeTimeout, err)
}

// verdictStatus is the exit status of what was printed: nil for ok.
func verdictStatus(p printers.Printable) error {
	var verdicts []string
	switch v := p.(type) {
	case printers.Why:
		verdicts = append(verdicts, v.Report.Verdict)
	case printers.WhyReports:
		for _, r := range v.Reports {
			verdicts = append(verdicts, r.Verdict)
		}
	}
	status := 0
	for _, v := range verdicts {
		switch v {
		case v1alpha1.VerdictFailing:
			status = ExitFailing
		case v1alpha1.VerdictUnknown:
			if status == 0 {
				status = ExitUnknown
			}
		}
	}
	if status == 0 {
		return nil
	}
	return exitStatus(status)
}
