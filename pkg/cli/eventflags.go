package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/redact"
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
	Origins       []string
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
	fs.StringVar(&f.Since, "since", f.Since, "Start after this event sequence number, with the events of this last while (a duration such as 10m), or with those since this RFC 3339 time. "+sinceHelp)
	fs.StringVar(&f.Until, "until", f.Until, "End after this event sequence number, with the events older than this duration or RFC 3339 time, or at now (the last event when the command started).")
	fs.IntVar(&f.Tail, "tail", f.Tail, "Start with only the last N events that pass the filters (of those --since and --until leave).")
	fs.StringSliceVar(&f.Kinds, "kind", f.Kinds, "Only events of these kinds: "+strings.Join(v1alpha1.EventKinds, ", ")+". Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Ops, "op", f.Ops, "Only config events with these operations: "+strings.Join(v1alpha1.ConfigOps, ", ")+". Any case. Repeatable; a leading ! excludes (quote it: --op='!"+v1alpha1.OpUpdate+"').")
	fs.StringSliceVar(&f.Types, "type", f.Types, "Only PLEG events of these types: "+strings.Join(v1alpha1.PLEGTypes, ", ")+". Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Sources, "source", f.Sources, "Only config events from these sources: "+strings.Join(v1alpha1.Sources, ", ")+". Repeatable; a leading ! excludes.")
	fs.StringArrayVar(&f.Origins, "origin", f.Origins, "Only config events of the static pods from this manifest (its path on the node) or static pod URL, matched whole and exactly; a URL's credentials are masked before it is sent, as the agent masks them. Repeatable, one per flag (a comma is part of the value); a leading ! excludes.")
	fs.StringSliceVar(&f.Pods, "pod", f.Pods, "Only events of the pods [NAMESPACE/]NAME, a glob (web-*, kube-system/*), or of the pod of this UID. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Containers, "container", f.Containers, "Only PLEG events of these containers, a glob. Repeatable; a leading ! excludes.")
	fs.StringSliceVar(&f.Handlers, "handler", f.Handlers, "Only events the kubelet's sync loop sends to these handlers: "+strings.Join(v1alpha1.SyncHandlers, ", ")+" (in any case; ignored is an event it acts on with none). Repeatable; a leading ! excludes.")
	fs.BoolVarP(&f.AllNamespaces, "all-namespaces", "A", f.AllNamespaces, "Events of all namespaces, even if the kubeconfig's context sets one (the default unless -n is given or the context sets a namespace).")
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
	_ = cmd.RegisterFlagCompletionFunc("handler", complete(v1alpha1.SyncHandlers))
}

// ToQuery returns the query the flags describe, with namespace (-n) and
// the pod label selector, checked as the agent checks it; now turns the
// RFC 3339 times of --since and --until into ages.
func (f *EventQueryFlags) ToQuery(namespace string, now time.Time) (v1alpha1.EventQuery, error) {
	q := v1alpha1.EventQuery{
		Kinds: canonical(f.Kinds, v1alpha1.EventKinds), Ops: canonical(f.Ops, v1alpha1.ConfigOps),
		Types: canonical(f.Types, v1alpha1.PLEGTypes), Sources: canonical(f.Sources, v1alpha1.Sources), Origins: maskedOrigins(f.Origins),
		Pods: f.Pods, Containers: f.Containers, Handlers: f.Handlers, Selector: f.Selector, Tail: f.Tail,
	}
	if f.AllNamespaces && namespace != "" {
		return q, fmt.Errorf("-A/--all-namespaces and -n/--namespace exclude each other")
	}
	if namespace != "" {
		q.Namespaces = []string{namespace}
	}
	if f.Tail < 0 {
		return q, fmt.Errorf("--tail %d: want a number of events", f.Tail)
	}
	var err error
	if q.Since, err = parseMarkFlag("--since", f.Since, now); err != nil {
		return q, err
	}
	if q.Until, err = parseMarkFlag("--until", f.Until, now); err != nil {
		return q, err
	}
	if s, u := q.Since, q.Until; s != nil && u != nil && s.IsAge == u.IsAge && ((!s.IsAge && s.Seq > u.Seq) || (s.IsAge && s.Age < u.Age)) {
		return q, fmt.Errorf("--since %s is after --until %s: no event could pass; swap them", f.Since, f.Until)
	}
	if err := q.Validate(); err != nil {
		return q, queryFlagError(err)
	}
	return q, nil
}

// maskedOrigins returns the values of --origin with the credentials of
// their URLs masked (redact.MaskURL), as the agent shows a static pod's
// URL, so that they match it and never leave this machine.
func maskedOrigins(origins []string) []string {
	if origins == nil {
		return nil
	}
	out := make([]string, len(origins))
	for i, o := range origins {
		neg, value := "", o
		if v, ok := strings.CutPrefix(o, "!"); ok {
			neg, value = "!", v
		}
		if strings.Contains(value, "://") {
			value = redact.MaskURL(value)
		}
		out[i] = neg + value
	}
	return out
}

// parseMarkFlag reads the value of --since or --until (flag): what
// v1alpha1.ParseMark reads, or an RFC 3339 time, which becomes its age at
// now. An empty value is no mark.
func parseMarkFlag(flag, value string, now time.Time) (*v1alpha1.Mark, error) {
	if value == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, value); err == nil {
		if t.After(now) {
			return nil, fmt.Errorf("%s %s is in the future (it is %s now)", flag, value, now.UTC().Format(time.RFC3339))
		}
		return v1alpha1.AgeMark(now.Sub(t)), nil
	}
	m, err := v1alpha1.ParseMark(value)
	if err != nil {
		return nil, fmt.Errorf("%s %w, or an RFC 3339 time such as %s", flag, err, now.UTC().Truncate(time.Hour).Format(time.RFC3339))
	}
	return m, nil
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
	"kind": "--kind", "op": "--op", "type": "--type", "source": "--source", "origin": "--origin", "namespace": "-n/--namespace",
	"pod": "--pod", "container": "--container", "handler": "--handler", "labelSelector": "-l/--selector",
}
