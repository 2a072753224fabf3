package agent

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	api "github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// parseSource checks a ?source= value: empty or a kubelet source name.
func parseSource(s string) (string, error) {
	switch s {
	case "", api.SourceFile, api.SourceHTTP, api.SourceAPI:
		return s, nil
	}
	return "", fmt.Errorf("source %q: want file, http or api", s)
}

// streamQuery is a parsed /api/v1alpha1/events query.
type streamQuery struct {
	// since is a sequence number to resume after, or, when sinceTime is
	// set, ignored in favour of the events from that time on.
	since     uint64
	sinceTime time.Time
	snapshot  bool
	kind      string
	source    string
	namespace string
	// epoch is the agent process the client's since refers to.
	epoch string
}

// parseStreamQuery parses the stream's query parameters; now anchors a
// since given as a duration.
func parseStreamQuery(q url.Values, now time.Time) (streamQuery, error) {
	var sq streamQuery
	if s := q.Get("since"); s != "" {
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			sq.since = n
		} else if d, derr := time.ParseDuration(s); derr == nil && d >= 0 {
			sq.sinceTime = now.Add(-d)
		} else {
			return sq, fmt.Errorf("since %q: want a sequence number or a duration such as 5m", s)
		}
	}
	sq.epoch = q.Get("epoch")
	if len(sq.epoch) > 64 {
		return sq, fmt.Errorf("epoch %q is too long", sq.epoch[:64])
	}
	if s := q.Get("snapshot"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return sq, fmt.Errorf("snapshot %q: want true or false", s)
		}
		sq.snapshot = b
	}
	switch k := q.Get("kind"); k {
	case "", api.EventKindConfig, api.EventKindPLEG:
		sq.kind = k
	default:
		return sq, fmt.Errorf("kind %q: want config or pleg", k)
	}
	src, err := parseSource(q.Get("source"))
	if err != nil {
		return sq, err
	}
	sq.source = src
	if ns := q.Get("namespace"); ns != "" {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return sq, fmt.Errorf("namespace %q: %s", ns, errs[0])
		}
		sq.namespace = ns
	}
	return sq, nil
}

// filter returns the event as this stream shows it, and false when the
// stream skips it: a source filter keeps only config events of that source,
// a namespace filter keeps only that namespace's pods. trimmed says the
// event lost pods, so that its published line no longer fits it.
func (sq streamQuery) filter(e api.Event) (out api.Event, keep, trimmed bool) {
	if sq.kind != "" && e.Kind != sq.kind {
		return e, false, false
	}
	if sq.source != "" && (e.Kind != api.EventKindConfig || e.Source != sq.source) {
		return e, false, false
	}
	if sq.namespace == "" {
		return e, true, false
	}
	if e.Kind == api.EventKindPLEG {
		return e, e.Namespace == sq.namespace, false
	}
	var pods []api.PodRef
	for _, p := range e.Pods {
		if p.Namespace == sq.namespace {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return e, false, false
	}
	trimmed = len(pods) != len(e.Pods)
	e.Pods = pods
	return e, true, trimmed
}

// checkAhead refuses a since that is ahead of the agent's last sequence
// number last in its own epoch (or with none given): the client's number
// is not this agent's, and waiting for it would be silence.
func (sq streamQuery) checkAhead(last uint64, epoch string) error {
	if !sq.sinceTime.IsZero() || sq.since <= last || (sq.epoch != "" && sq.epoch != epoch) {
		return nil
	}
	return fmt.Errorf("since=%d is ahead of the agent's last event %d (epoch %s): resume with a since of at most %d, or leave since out to start with new events",
		sq.since, last, epoch, last)
}
