package cli

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/podsrc/podsrc/internal/shell"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// podHints finds, for events that printed nothing, the pods that --pod
// names but no node read has, and the pods close to them: "did you mean",
// as pod and why say it.
type podHints struct {
	// names are the values of --pod that name one pod (namedPods).
	names []string

	mu sync.Mutex
	// found are the names some node has; close, per name, the close
	// matches the nodes have.
	found map[string]bool
	close map[string][]string
}

// newPodHints returns the hints of the --pod values; nil when none names
// one pod.
func newPodHints(values []string) *podHints {
	names := namedPods(values)
	if len(names) == 0 {
		return nil
	}
	return &podHints{names: names, found: map[string]bool{}, close: map[string][]string{}}
}

// namedPods are the values of --pod that name one pod, [NAMESPACE/]NAME:
// not an exclusion, nor a glob.
func namedPods(values []string) []string {
	var out []string
	for _, v := range values {
		if v != "" && !strings.HasPrefix(v, "!") && !strings.ContainsAny(v, "*?[") {
			out = append(out, v)
		}
	}
	return out
}

// look asks a, whose node's history had none of the events asked for,
// for its pods in namespaces (none: every namespace), and notes which
// names it has (by name or UID) and the pods close to those it has not.
// An agent that does not answer adds nothing.
func (h *podHints) look(ctx context.Context, a *client.Agent, namespaces []string) {
	if h == nil {
		return
	}
	defer a.Release()
	list, err := a.Pods(ctx, v1alpha1.PodQuery{Namespaces: namespaces})
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.names {
		_, _, qualified := strings.Cut(n, "/")
		candidates := podNames(list.Items, qualified)
		if slices.Contains(candidates, n) || slices.ContainsFunc(list.Items, func(p v1alpha1.PodInfo) bool { return string(p.UID) == n }) {
			h.found[n] = true
			continue
		}
		h.close[n] = append(h.close[n], closeMatches(n, candidates)...)
	}
}

// print says, for each name no node has, the close matches the nodes
// have, if any.
func (h *podHints) print(o *CommonOptions) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.names {
		var m []string
		for _, c := range h.close[n] {
			if !slices.Contains(m, c) {
				m = append(m, c)
			}
		}
		if h.found[n] || len(m) == 0 {
			continue
		}
		printers.PrintLine(o.ErrOut, "no pod %s on the nodes read: %s", shell.Quote(n), didYouMean(m[:min(len(m), maxSuggestions)]))
	}
}
