package cli

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// nodeLabelPrefixes are the prefixes of the well-known labels Kubernetes
// puts on nodes and never on pods; -l with one of them is a node selector
// written as podsrc took it before -l selected pods.
var nodeLabelPrefixes = []string{
	"node-role.kubernetes.io/", "node.kubernetes.io/", "node-restriction.kubernetes.io/",
	"topology.kubernetes.io/", "kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch",
	"beta.kubernetes.io/", "failure-domain.beta.kubernetes.io/",
}

// checkPodSelector refuses -l where it is not a pod selector, so that no
// old command line that meant nodes silently selects pods (or nothing):
// on a command that does not select pods by label; with no node named or selected
// otherwise (before, -l was the selection); and with a well-known node
// label. Each error names --node-selector.
func (f *NodeFlags) checkPodSelector(o *CommonOptions) error {
	sel := f.podSelector
	if f.PodSelector != nil {
		sel = *f.PodSelector
	}
	if sel == "" {
		return nil
	}
	instead := fmt.Sprintf("to select nodes by label, use --node-selector=%q", sel)
	if f.PodSelector == nil {
		return fmt.Errorf("-l/--selector selects pods, as in kubectl, and this command does not select pods by label: %s", instead)
	}
	if parsed, err := labels.Parse(sel); err == nil {
		reqs, _ := parsed.Requirements()
		for _, r := range reqs {
			for _, p := range nodeLabelPrefixes {
				if strings.HasPrefix(r.Key(), p) {
					return fmt.Errorf("-l/--selector selects pods, as in kubectl, and %s is a node label: %s", r.Key(), instead)
				}
			}
		}
	}
	if len(f.Names) == 0 && !f.Selecting() && !o.Direct() {
		return fmt.Errorf("-l/--selector %q selects pods, as in kubectl, not nodes: name the nodes, use --all-nodes, or, %s", sel, instead)
	}
	return nil
}
