package v1alpha1

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Config notification operations, as the kubelet names them.
const (
	OpAdd       = "ADD"
	OpUpdate    = "UPDATE"
	OpDelete    = "DELETE"
	OpRemove    = "REMOVE"
	OpReconcile = "RECONCILE"
	OpSet       = "SET"
)

// ConfigOps are the operations of config events.
var ConfigOps = []string{OpAdd, OpUpdate, OpDelete, OpRemove, OpReconcile, OpSet}

// PLEG event types, as the kubelet names them.
const (
	PLEGContainerStarted = "ContainerStarted"
	PLEGContainerDied    = "ContainerDied"
	PLEGContainerRemoved = "ContainerRemoved"
	PLEGPodSync          = "PodSync"
	// PLEGContainerChanged is computed by the kubelet's PLEG but never sent.
	PLEGContainerChanged = "ContainerChanged"
)

// PLEGTypes are the types of PLEG events.
var PLEGTypes = []string{PLEGContainerStarted, PLEGContainerDied, PLEGContainerRemoved, PLEGPodSync, PLEGContainerChanged}

// EventKinds are the kinds of events a query may name (boundaries pass
// every filter).
var EventKinds = []string{EventKindConfig, EventKindPLEG, EventKindInput}

// Sources are the kubelet's pod sources.
var Sources = []string{SourceFile, SourceHTTP, SourceAPI}

// Mark is a point of an agent's event sequence: a sequence number, or an age
// by the agent's clock (age 0 is now).
type Mark struct {
	Seq   uint64
	Age   time.Duration
	IsAge bool
}

// SeqMark returns the mark of a sequence number.
func SeqMark(seq uint64) *Mark { return &Mark{Seq: seq} }

// AgeMark returns the mark of an age.
func AgeMark(age time.Duration) *Mark { return &Mark{Age: age, IsAge: true} }

// ParseMark parses a sequence number, a duration such as 5m (an age), or now.
func ParseMark(s string) (*Mark, error) {
	if s == "now" {
		return AgeMark(0), nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return SeqMark(n), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return AgeMark(d), nil
	}
	return nil, fmt.Errorf("%q: want an event sequence number, a duration such as 5m, or now", s)
}

// String returns the mark as ParseMark reads it.
func (m Mark) String() string {
	switch {
	case !m.IsAge:
		return strconv.FormatUint(m.Seq, 10)
	case m.Age == 0:
		return "now"
	}
	return m.Age.String()
}

// EventQuery is the query of the agent's event stream (EventsPath): where
// the stream starts and ends, and which events it carries. Encode and
// ParseEventQuery are its only encoding and Match its only filter, for the
// agent, the client and the fake agent alike.
//
// The filter lists are repeatable; a value with a leading "!" excludes what
// it names. An event passes a list when it matches one of its plain values
// (or the list has none) and none of its "!" values. Ops, Sources and
// Origins concern config events and Types and Containers PLEG events: when
// only one kind's lists have a plain value, and Kinds is empty, the other
// kind is left out (so --op=ADD shows no PLEG event, --op=ADD
// --type=ContainerDied both). Namespaces, Pods and Selector concern the
// pods of both kinds: a config event keeps only its pods that pass (and
// those Origins let pass), and is left out when none does. Handlers
// concern both kinds too, and match without regard to case.
type EventQuery struct {
	// Since starts after that sequence number (0: every event the agent
	// holds), or with the events of that last while; nil starts now (after
	// a heartbeat that says where now is). Epoch is the agent process that
	// numbered a Since sequence number.
	Since *Mark
	Epoch string
	// Until ends the stream, with a MessageEnd, at that sequence number, at
	// the last event older than that age, or (age 0, now) at the last event
	// when the stream opened. A bounded stream opens with a heartbeat whose
	// Until is the bound as a sequence number, for a client to resume to.
	Until *Mark
	// Tail, when positive, starts the stream with at most the last Tail
	// events that pass the filter, of those Since and Until leave.
	Tail int
	// Snapshot starts the stream with the pods' state.
	Snapshot bool

	Kinds   []string
	Ops     []string
	Types   []string
	Sources []string
	// Origins are where static pods came from (PodRef.Origin), each
	// matched whole and exactly: a manifest's path on the node, or the
	// static pod URL as the agent shows it, its credentials masked.
	Origins    []string
	Namespaces []string
	// Pods are globs of [namespace/]name (path.Match's syntax); Containers
	// globs of container names.
	Pods       []string
	Containers []string
	// Handlers are the kubelet's sync loop handlers of the events
	// (Event.Handler; one of SyncHandlers, in any case).
	Handlers []string
	// Selector is a label selector of the pods, as kubectl's -l.
	Selector string

	// selector is Selector parsed, by ParseEventQuery or the first Match.
	selector labels.Selector
}

// Query parameter names of the event stream.
const (
	paramSince     = "since"
	paramEpoch     = "epoch"
	paramUntil     = "until"
	paramTail      = "tail"
	paramSnapshot  = "snapshot"
	paramKind      = "kind"
	paramOp        = "op"
	paramType      = "type"
	paramSource    = "source"
	paramOrigin    = "origin"
	paramNamespace = "namespace"
	paramPod       = "pod"
	paramContainer = "container"
	paramHandler   = "handler"
	paramSelector  = "labelSelector"
)

// Encode returns the URL query of q.
func (q EventQuery) Encode() url.Values {
	v := url.Values{}
	if q.Since != nil {
		v.Set(paramSince, q.Since.String())
		if q.Epoch != "" && !q.Since.IsAge {
			v.Set(paramEpoch, q.Epoch)
		}
	}
	if q.Until != nil {
		v.Set(paramUntil, q.Until.String())
	}
	if q.Tail > 0 {
		v.Set(paramTail, strconv.Itoa(q.Tail))
	}
	if q.Snapshot {
		v.Set(paramSnapshot, "true")
	}
	for _, l := range []struct {
		name   string
		values []string
	}{
		{paramKind, q.Kinds}, {paramOp, q.Ops}, {paramType, q.Types}, {paramSource, q.Sources}, {paramOrigin, q.Origins},
		{paramNamespace, q.Namespaces}, {paramPod, q.Pods}, {paramContainer, q.Containers}, {paramHandler, q.Handlers},
	} {
		for _, s := range l.values {
			v.Add(l.name, s)
		}
	}
	if q.Selector != "" {
		v.Set(paramSelector, q.Selector)
	}
	return v
}

// Filtered reports whether q filters events by anything: their kind,
// their fields or their pods.
func (q EventQuery) Filtered() bool { return len(q.Kinds) > 0 || q.filtersFields() }

// filtersFields reports whether q filters events by anything but their
// kind.
func (q EventQuery) filtersFields() bool {
	return len(q.Ops)+len(q.Types)+len(q.Sources)+len(q.Origins)+len(q.Namespaces)+len(q.Pods)+len(q.Containers)+len(q.Handlers) > 0 || q.Selector != ""
}

// Gapless reports whether a stream with query q serves every event the
// agent numbers, so that a hole in its sequence numbers is a loss: a
// query that names every kind (inputs are served only to a query that
// names them), excludes none, and filters nothing else.
func (q EventQuery) Gapless() bool {
	for _, k := range EventKinds {
		if !slices.Contains(q.Kinds, k) {
			return false
		}
	}
	return !q.filtersFields() && !slices.ContainsFunc(q.Kinds, func(k string) bool { return strings.HasPrefix(k, "!") })
}

// PodQuery returns the pod filter of q, which the snapshot that opens
// its stream honours: Namespaces, Pods and Selector, and Sources when it
// names one source (a PodQuery takes one plain source; any other Sources
// leave the snapshot's sources whole). Kinds, Ops, Types, Origins,
// Containers and Handlers concern events, not pods.
func (q EventQuery) PodQuery() PodQuery {
	p := PodQuery{Namespaces: q.Namespaces, Pods: q.Pods, Selector: q.Selector}
	if len(q.Sources) == 1 && !strings.HasPrefix(q.Sources[0], "!") {
		p.Source = q.Sources[0]
	}
	return p
}

// ParseEventQuery parses and checks the query of the event stream; the
// errors name the parameter at fault.
func ParseEventQuery(v url.Values) (EventQuery, error) {
	var q EventQuery
	var err error
	if s := v.Get(paramSince); s != "" {
		if q.Since, err = ParseMark(s); err != nil {
			return q, fmt.Errorf("since %w", err)
		}
	}
	q.Epoch = v.Get(paramEpoch)
	if len(q.Epoch) > 64 {
		return q, fmt.Errorf("epoch %q is too long", q.Epoch[:64])
	}
	if s := v.Get(paramUntil); s != "" {
		if q.Until, err = ParseMark(s); err != nil {
			return q, fmt.Errorf("until %w", err)
		}
	}
	if s := v.Get(paramTail); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return q, fmt.Errorf("tail %q: want a number of events", s)
		}
		q.Tail = n
	}
	if s := v.Get(paramSnapshot); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return q, fmt.Errorf("snapshot %q: want true or false", s)
		}
		q.Snapshot = b
	}
	q.Kinds, q.Ops, q.Types, q.Sources, q.Origins = v[paramKind], v[paramOp], v[paramType], v[paramSource], v[paramOrigin]
	q.Namespaces, q.Pods, q.Containers, q.Handlers = v[paramNamespace], v[paramPod], v[paramContainer], v[paramHandler]
	q.Selector = v.Get(paramSelector)
	return q, q.Validate()
}

// Validate checks the filter's values, and parses Selector for Match.
func (q *EventQuery) Validate() error {
	for _, l := range []struct {
		name   string
		values []string
		known  []string
	}{
		{paramKind, q.Kinds, EventKinds}, {paramOp, q.Ops, ConfigOps}, {paramType, q.Types, PLEGTypes}, {paramSource, q.Sources, Sources},
	} {
		for _, s := range l.values {
			if !slices.Contains(l.known, strings.TrimPrefix(s, "!")) {
				return &QueryError{l.name, s, "want one of " + strings.Join(l.known, ", ") + ", optionally with a leading ! to exclude it"}
			}
		}
	}
	for _, s := range q.Handlers {
		if !slices.ContainsFunc(SyncHandlers, func(h string) bool { return strings.EqualFold(h, strings.TrimPrefix(s, "!")) }) {
			return &QueryError{paramHandler, s, "want one of " + strings.Join(SyncHandlers, ", ") + " (in any case), optionally with a leading ! to exclude it"}
		}
	}
	for _, s := range q.Origins {
		if strings.TrimPrefix(s, "!") == "" {
			return &QueryError{paramOrigin, s, "want a static pod manifest's path on the node or a static pod URL"}
		}
	}
	if err := checkGlobs(paramContainer, q.Containers); err != nil {
		return err
	}
	sel, err := parsePodFilter(q.Namespaces, q.Pods, q.Selector)
	if err != nil {
		return err
	}
	q.selector = sel
	return nil
}

// parsePodFilter checks the pod filter that EventQuery and PodQuery share
// (namespaces, [namespace/]name globs and a label selector) and returns
// the selector parsed.
func parsePodFilter(namespaces, pods []string, selector string) (labels.Selector, error) {
	for _, ns := range namespaces {
		if errs := validation.IsDNS1123Label(strings.TrimPrefix(ns, "!")); len(errs) > 0 {
			return nil, &QueryError{paramNamespace, ns, errs[0]}
		}
	}
	if err := checkGlobs(paramPod, pods); err != nil {
		return nil, err
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, &QueryError{paramSelector, selector, err.Error()}
	}
	return sel, nil
}

// checkGlobs checks the globs of the filter list param.
func checkGlobs(param string, globs []string) error {
	for _, g := range globs {
		if _, err := path.Match(strings.TrimPrefix(g, "!"), ""); err != nil || strings.TrimPrefix(g, "!") == "" {
			return &QueryError{param, g, "want a glob such as web-* (or namespace/web-* for a pod)"}
		}
	}
	return nil
}

// QueryError is a bad value of a query parameter Param (of EventQuery or
// PodQuery).
type QueryError struct {
	Param, Value string
	// Want says what is wrong, or what the parameter takes.
	Want string
}

func (e *QueryError) Error() string { return fmt.Sprintf("%s %q: %s", e.Param, e.Value, e.Want) }

// Match returns the event as a stream with query q shows it, and false when
// the stream leaves it out; trimmed says a config event lost pods. Call
// Validate (or get q from ParseEventQuery) first; q must not be matched from
// two goroutines before it is.
func (q *EventQuery) Match(e Event) (out Event, keep, trimmed bool) {
	if q.selector == nil {
		if err := q.Validate(); err != nil {
			return e, false, false
		}
	}
	if e.Kind == EventKindBoundary {
		// Where the agent was not watching matters to every filter.
		return e, true, false
	}
	if !q.kindPasses(e.Kind) || !passes(q.Handlers, e.Handler, strings.EqualFold) {
		return e, false, false
	}
	switch e.Kind {
	case EventKindConfig:
		if !passes(q.Ops, e.Op, equal) || !passes(q.Sources, e.Source, equal) {
			return e, false, false
		}
		if !q.podFiltered() && len(q.Origins) == 0 {
			return e, true, false
		}
		var pods []PodRef
		for _, p := range e.Pods {
			if q.podPasses(p.Namespace, p.Name, string(p.UID), p.Labels) && passes(q.Origins, p.Origin, equal) {
				pods = append(pods, p)
			}
		}
		if len(pods) == 0 {
			return e, false, false
		}
		trimmed = len(pods) != len(e.Pods)
		e.Pods = pods
		return e, true, trimmed
	case EventKindPLEG:
		if !passes(q.Types, e.Type, equal) || !passes(q.Containers, e.ContainerName, glob) {
			return e, false, false
		}
		return e, q.podPasses(e.Namespace, e.PodName, string(e.PodUID), e.Labels), false
	case EventKindInput:
		return e, true, false
	}
	return e, !q.Filtered(), false
}

// kindPasses reports whether events of kind may pass at all. Inputs pass
// only a query that names their kind.
func (q *EventQuery) kindPasses(kind string) bool {
	if kind == EventKindInput {
		return slices.Contains(q.Kinds, EventKindInput)
	}
	if len(q.Kinds) > 0 {
		return passes(q.Kinds, kind, equal)
	}
	config := hasPlain(q.Ops) || hasPlain(q.Sources) || hasPlain(q.Origins)
	pleg := hasPlain(q.Types) || hasPlain(q.Containers)
	switch kind {
	case EventKindConfig:
		return config || !pleg
	case EventKindPLEG:
		return pleg || !config
	}
	return true
}

// podFiltered reports whether q filters pods.
func (q *EventQuery) podFiltered() bool {
	return len(q.Namespaces) > 0 || len(q.Pods) > 0 || !q.selector.Empty()
}

// podPasses reports whether a pod passes the namespace, pod and label
// filters.
func (q *EventQuery) podPasses(namespace, name, uid string, podLabels map[string]string) bool {
	return podFilterPasses(q.Namespaces, q.Pods, q.selector, namespace, name, uid, podLabels)
}

// podFilterPasses reports whether a pod passes the pod filter that
// EventQuery and PodQuery share: a pod value is a glob of [namespace/]name,
// or the pod's UID.
func podFilterPasses(namespaces, pods []string, sel labels.Selector, namespace, name, uid string, podLabels map[string]string) bool {
	if !passes(namespaces, namespace, equal) {
		return false
	}
	byRef := func(pattern, got string) bool { return podGlob(pattern, got) || (uid != "" && pattern == uid) }
	if !passes(pods, namespace+"/"+name, byRef) {
		return false
	}
	return sel.Empty() || sel.Matches(labels.Set(podLabels))
}

// equal, glob and podGlob match a filter value against an event's.
func equal(want, got string) bool { return want == got }

func glob(pattern, got string) bool {
	ok, _ := path.Match(pattern, got)
	return ok
}

// podGlob matches [namespace/]name against namespace/name.
func podGlob(pattern, got string) bool {
	if !strings.Contains(pattern, "/") {
		_, got, _ = strings.Cut(got, "/")
	}
	return glob(pattern, got)
}

// passes reports whether got passes a filter list: it matches a plain value
// (or there is none) and no "!" value.
func passes(list []string, got string, match func(want, got string) bool) bool {
	plain, hit := false, false
	for _, v := range list {
		if neg, ok := strings.CutPrefix(v, "!"); ok {
			if match(neg, got) {
				return false
			}
			continue
		}
		plain = true
		hit = hit || match(v, got)
	}
	return !plain || hit
}

// hasPlain reports whether a filter list has a value without "!".
func hasPlain(list []string) bool {
	for _, v := range list {
		if !strings.HasPrefix(v, "!") {
			return true
		}
	}
	return false
}
