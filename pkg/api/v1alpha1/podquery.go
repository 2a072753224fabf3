package v1alpha1

import (
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// PodQuery is the query of the agent's pod list (PodsPath): which pods it
// holds. Encode and ParsePodQuery are its only encoding and Match its only
// filter, for the agent, the client and the fake agent alike.
type PodQuery struct {
	// Source keeps the pods of that source (file, http or api) only, and
	// leaves out the pods only the runtime has; empty keeps every pod.
	// Unlike EventQuery's Sources it takes one plain value.
	Source string
	// Namespaces, Pods and Selector filter as in EventQuery: repeatable
	// namespaces and [namespace/]name globs, "!" excluding, and a label
	// selector of the pods (pods only the runtime has carry no labels).
	Namespaces []string
	Pods       []string
	Selector   string

	// selector is Selector parsed, by ParsePodQuery or the first Match.
	selector labels.Selector
	// refused says ParsePodQuery refused the query, which then matches no
	// pod, even where its fields alone would validate (two sources).
	refused bool
}

// Encode returns the URL query of q.
func (q PodQuery) Encode() url.Values {
	v := url.Values{}
	if q.Source != "" {
		v.Set(paramSource, q.Source)
	}
	for _, ns := range q.Namespaces {
		v.Add(paramNamespace, ns)
	}
	for _, p := range q.Pods {
		v.Add(paramPod, p)
	}
	if q.Selector != "" {
		v.Set(paramSelector, q.Selector)
	}
	return v
}

// Filtered reports whether q leaves pods out.
func (q PodQuery) Filtered() bool {
	return q.Source != "" || len(q.Namespaces)+len(q.Pods) > 0 || q.Selector != ""
}

// ParsePodQuery parses and checks the query of the pod list; the errors
// name the parameter at fault, and the query returned with one matches no
// pod.
func ParsePodQuery(v url.Values) (PodQuery, error) {
	q := PodQuery{Source: v.Get(paramSource), Namespaces: v[paramNamespace], Pods: v[paramPod], Selector: v.Get(paramSelector)}
	var err error
	switch {
	case len(v[paramSource]) > 1:
		err = &QueryError{paramSource, strings.Join(v[paramSource], ","), "want one source"}
	case len(v[paramSelector]) > 1:
		err = &QueryError{paramSelector, strings.Join(v[paramSelector], ","), "want one selector (a selector joins requirements with commas)"}
	default:
		err = q.Validate()
	}
	q.refused = err != nil
	return q, err
}

// Validate checks the filter's values, and parses Selector for Match.
func (q *PodQuery) Validate() error {
	if q.Source != "" && !slices.Contains(Sources, q.Source) {
		return &QueryError{paramSource, q.Source, "want one of " + strings.Join(Sources, ", ")}
	}
	sel, err := parsePodFilter(q.Namespaces, q.Pods, q.Selector)
	if err != nil {
		return err
	}
	q.selector = sel
	return nil
}

// Match reports whether the pod list with query q holds p. Call Validate
// (or get q from ParsePodQuery) first; q must not be matched from two
// goroutines before it is. A q that does not validate matches nothing.
func (q *PodQuery) Match(p PodInfo) bool {
	if q.refused {
		return false
	}
	if q.selector == nil {
		if err := q.Validate(); err != nil {
			return false
		}
	}
	if q.Source != "" && p.Source != q.Source {
		return false
	}
	return podFilterPasses(q.Namespaces, q.Pods, q.selector, p.Namespace, p.Name, string(p.UID), p.Labels)
}
