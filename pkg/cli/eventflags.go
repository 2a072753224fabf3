package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// EventQueryFlags are the flags of events and watch that make up the
// agent's event query: where the history starts and ends, and the filter,
// which the agent applies, so that what it leaves out never crosses the
// proxy.
type EventQueryFlags struct {
	Since, Until  string
	Tail          int
	Kinds         []string
	Ops           []string
	Types         []string
	Sources       []string
	Pods          []string
	Containers    []string
	Handlers      []string
	Selector      string
	AllNamespaces bool
}

// AddFlags binds the flags to cmd; sinceHelp says where the stream starts
// without --since.
func (f *EventQueryFlags) AddFlags(cmd *cobra.Command, sinceHelp string) {
	fs := cmd.Flags()
	fs.StringVar(&f.Since, "since", f.Since, "Start after this event sequence number, or with the events of this last while (a duration such as 10m). "+sinceHelp)
	fs.StringVar(&f.Until, "until", f.Until, "End after this event sequence number, with the events older than this duration, or at now (the last event when the command started).")
	fs.IntVar(&f.Tail, "tail", f.Tail, "Start with only the last N events that pass the filters (of those --since and --until leave).")
	fs.StringSliceVar(&f.Kinds, "kind", f.Kinds, "Only events of these kinds: config or pleg. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Ops, "op", f.Ops, "Only config events with these operations: ADD, UPDATE, DELETE, REMOVE, RECONCILE, SET. Repeatable; a leading ! excludes (quote it: --op='!UPDATE').")
	fs.StringSliceVar(&f.Types, "type", f.Types, "Only PLEG events of these types: ContainerStarted, ContainerDied, ContainerRemoved, PodSync, ContainerChanged. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Sources, "source", f.Sources, "Only config events from these sources: file, http or api. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Pods, "pod", f.Pods, "Only events of the pods [NAMESPACE/]NAME, a glob (web-*, kube-system/*). Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Containers, "container", f.Containers, "Only PLEG events of these containers, a glob. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Handlers, "handler", f.Handlers, "Only events the kubelet's sync loop sends to these handlers: "+strings.Join(v1alpha1.Handlers, ", ")+" (in any case; ignored is an event it acts on with none). Repeatable; a leading ! excludes.")
	fs.BoolVarP(&f.AllNamespaces, "all-namespaces", "A", f.AllNamespaces, "Events of all namespaces (the default unless -n is given).")
	complete := func(values ...[]string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, v := range values {
				out = append(out, v...)
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = cmd.RegisterFlagCompletionFunc("kind", complete(v1alpha1.EventKinds))
	_ = cmd.RegisterFlagCompletionFunc("op", complete(v1alpha1.ConfigOps))
	_ = cmd.RegisterFlagCompletionFunc("type", complete(v1alpha1.PLEGTypes))
	_ = cmd.RegisterFlagCompletionFunc("source", complete(v1alpha1.Sources))
	_ = cmd.RegisterFlagCompletionFunc("handler", complete(v1alpha1.Handlers))
}

// ToQuery returns the query the flags describe, with namespace (-n) and
// the pod label selector, checked as the agent checks it.
func (f *EventQueryFlags) ToQuery(namespace string) (v1alpha1.EventQuery, error) {
	q := v1alpha1.EventQuery{Kinds: f.Kinds, Types: f.Types, Sources: f.Sources, Pods: f.Pods, Containers: f.Containers, Handlers: f.Handlers, Selector: f.Selector, Tail: f.Tail}
	if f.AllNamespaces && namespace != "" {
		return q, fmt.Errorf("-A/--all-namespaces and -n/--namespace exclude each other")
	}
	if namespace != "" {
		q.Namespaces = []string{namespace}
	}
	for _, op := range f.Ops {
		q.Ops = append(q.Ops, strings.ToUpper(op))
	}
	if f.Tail < 0 {
		return q, fmt.Errorf("--tail %d: want a number of events", f.Tail)
	}
	var err error
	if f.Since != "" {
		if q.Since, err = v1alpha1.ParseMark(f.Since); err != nil {
			return q, fmt.Errorf("--since %w", err)
		}
	}
	if f.Until != "" {
		if q.Until, err = v1alpha1.ParseMark(f.Until); err != nil {
			return q, fmt.Errorf("--until %w", err)
		}
	}
	if err := q.Validate(); err != nil {
		return q, queryFlagError(err)
	}
	return q, nil
}

// queryFlagError names the flag of a bad query parameter (of an event or
// pod query) in its error.
func queryFlagError(err error) error {
	var qe *v1alpha1.QueryError
	if errors.As(err, &qe) && queryFlags[qe.Param] != "" {
		return fmt.Errorf("%s %q: %s", queryFlags[qe.Param], qe.Value, qe.Want)
	}
	return err
}

// queryFlags are the flags of the event and pod queries' filter parameters.
var queryFlags = map[string]string{
	"kind": "--kind", "op": "--op", "type": "--type", "source": "--source", "namespace": "-n/--namespace",
	"pod": "--pod", "container": "--container", "handler": "--handler", "labelSelector": "-l/--selector",
}
