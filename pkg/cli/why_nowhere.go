package cli

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/podsrc/podsrc/internal/shell"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/why"
)

// maxSuggestions bounds the close matches a target found nowhere gets.
const maxSuggestions = 3

// nowhere returns an error when what t names is nowhere: a pod the agent
// does not hold and the API server says does not exist, or a manifest path
// the agent knows nothing of. Then there is no pipeline to walk, and the
// report would blame a stage for a typo. The error says what was looked
// for and where, with the close matches among what the node has. It
// returns nil when the target is somewhere, or was (the agent's history
// names it), or when that cannot be told (the API server was not asked, or
// would not say).
func nowhere(t why.Target, s why.Subject, f why.Facts) error {
	if s.Info != nil {
		return nil
	}
	var looked string
	var candidates []string
	switch {
	case t.Path != "":
		if s.Name != "" || fileKnown(f.Sources, t.Path) {
			return nil
		}
		looked = fmt.Sprintf("no manifest %s on node %s: the agent's file source neither read, rejected nor shadowed it", t.Path, f.Node)
		candidates = manifestPaths(f)
	case s.Source == v1alpha1.SourceAPI && (apierrors.IsNotFound(f.APIPod.Err) || standalone(f) && !f.APIPod.Known()):
		if inHistory(f.History.Value, s.Namespace, s.Name) {
			// The node had it: its removal is the story to tell.
			return nil
		}
		inAPI := "the API server has no pod " + s.Namespace + "/" + s.Name
		switch {
		case apierrors.IsNotFound(f.Namespace.Err):
			inAPI = "the API server has no namespace " + s.Namespace
		case !apierrors.IsNotFound(f.APIPod.Err):
			// A standalone kubelet runs no pod of the API server,
			// whatever the API server would say.
			inAPI = "the kubelet has no API source (it runs only static pods)"
		}
		looked = fmt.Sprintf("no pod %q on node %s: the kubelet's configuration has no pod %s or %s-%s, no manifest is named %s, and %s",
			t.Raw, f.Node, t.Name, t.Name, strings.ToLower(f.Node), t.Name, inAPI)
		candidates = podNames(f.Pods, strings.Contains(t.Raw, "/"))
	default:
		return nil
	}
	msg := looked
	if m := closeMatches(targetText(t), candidates); len(m) > 0 {
		msg += "; " + didYouMean(m)
	} else {
		msg += fmt.Sprintf("; kubectl podsrc pods %s lists the node's pods", shell.Operands(f.Node))
	}
	return nowhereError(msg)
}

// standalone reports whether the agent says its kubelet has no API source.
func standalone(f why.Facts) bool {
	if f.Sources == nil {
		return false
	}
	return !slices.ContainsFunc(f.Sources.Items, func(s v1alpha1.Source) bool { return s.Name == v1alpha1.SourceAPI })
}

// inHistory reports whether a config event of the agent's history names
// the pod namespace/name.
func inHistory(events []v1alpha1.Event, namespace, name string) bool {
	for _, ev := range events {
		if ev.Kind != v1alpha1.EventKindConfig {
			continue
		}
		for _, p := range ev.Pods {
			if p.Namespace == namespace && p.Name == name {
				return true
			}
		}
	}
	return false
}

// nowhereError says that a target is nowhere; it names the node itself.
type nowhereError string

// Error implements error.
func (e nowhereError) Error() string { return string(e) }

// targetText is what the target's close matches are measured against: the
// path, NAMESPACE/NAME as given, or the name.
func targetText(t why.Target) string {
	if t.Path != "" {
		return t.Path
	}
	if strings.Contains(t.Raw, "/") {
		return t.Namespace + "/" + t.Name
	}
	// -n does not qualify what the user typed.
	return t.Name
}

// fileKnown reports whether the file source knows the manifest at p as
// rejected or shadowed.
func fileKnown(l *v1alpha1.SourceList, p string) bool {
	if l == nil {
		return false
	}
	for _, s := range l.Items {
		for _, r := range s.RejectedFiles {
			if r.Path == p {
				return true
			}
		}
		for _, sh := range s.ShadowedFiles {
			if sh.Path == p {
				return true
			}
		}
	}
	return false
}

// manifestPaths are the manifests the agent knows: of its static pods,
// rejected and shadowed.
func manifestPaths(f why.Facts) []string {
	var out []string
	for _, p := range f.Pods {
		if p.Source == v1alpha1.SourceFile && p.Origin != "" {
			out = append(out, p.Origin)
		}
	}
	if f.Sources != nil {
		for _, s := range f.Sources.Items {
			for _, r := range s.RejectedFiles {
				out = append(out, r.Path)
			}
			for _, sh := range s.ShadowedFiles {
				out = append(out, sh.Path)
			}
		}
	}
	return out
}

// podNames are the names of the node's configured pods, as NAMESPACE/NAME
// when qualified.
func podNames(pods []v1alpha1.PodInfo, qualified bool) []string {
	var out []string
	for _, p := range pods {
		if p.Source == "" {
			continue
		}
		if qualified {
			out = append(out, p.Namespace+"/"+p.Name)
		} else {
			out = append(out, p.Name)
		}
	}
	return out
}

// closeMatches returns up to maxSuggestions candidates close to s, the
// closest first: those that hold s, or that are a few edits away.
func closeMatches(s string, candidates []string) []string {
	type match struct {
		text string
		dist int
	}
	var ms []match
	for _, c := range slices.Compact(slices.Sorted(slices.Values(candidates))) {
		if c == s {
			continue
		}
		d := editDistance(s, c)
		if d <= max(2, len(s)/3) || strings.Contains(c, s) {
			ms = append(ms, match{c, d})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].dist < ms[j].dist })
	var out []string
	for _, m := range ms[:min(len(ms), maxSuggestions)] {
		out = append(out, m.text)
	}
	return out
}

// didYouMean suggests the close matches, each quoted as a shell word: the
// agent gave them, and an operator may paste one.
func didYouMean(matches []string) string {
	quoted := make([]string, len(matches))
	for i, m := range matches {
		quoted[i] = shell.Quote(m)
	}
	return "did you mean " + strings.Join(quoted, " or ") + "?"
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
