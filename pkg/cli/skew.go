package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/printers"
)

// skewCheck learns, as the fan-out reaches each node, the version of its
// agent (/version) and of its kubelet (the Node's status), and once every
// node was checked warns on stderr, once per kind of skew, about agents of
// another release than this kubectl-podsrc and kubelets of another minor
// version than the one the agents reproduce.
type skewCheck struct {
	out io.Writer

	mu sync.Mutex
	// nodes reads Node objects for their kubelet version; nil without a
	// cluster, or once reading them was forbidden.
	nodes corev1client.NodeInterface
	// kubelets are the kubelet versions the node list already gave.
	kubelets map[string]string
	left     int
	found    []NodeVersion
	printed  bool
}

// newSkewCheck returns the check of n nodes; kubelets holds the kubelet
// versions already known by node name, nodes reads the others (nil: none).
func newSkewCheck(out io.Writer, n int, nodes corev1client.NodeInterface, kubelets map[string]string) *skewCheck {
	return &skewCheck{out: out, nodes: nodes, kubelets: kubelets, left: n}
}

// check asks a's agent for its version and learns its node's kubelet
// version; it counts the node as checked whatever the outcome.
func (s *skewCheck) check(ctx context.Context, a *client.Agent) (NodeVersion, error) {
	defer s.checked()
	v, err := a.Version(ctx)
	if err != nil {
		return NodeVersion{}, err
	}
	nv := NodeVersion{Node: a.Node, Agent: v, NodeKubeletVersion: s.kubeletVersion(ctx, a.Node)}
	if nv.NodeKubeletVersion == "" {
		// The agent's own reading of its Node, for a caller who may not
		// read nodes.
		nv.NodeKubeletVersion = v.NodeKubeletVersion
	}
	if nv.Node == "" {
		nv.Node = v.NodeName
	}
	s.mu.Lock()
	s.found = append(s.found, nv)
	s.mu.Unlock()
	return nv, nil
}

// kubeletVersion returns the version of node's kubelet, or "" when it
// cannot be had: it is best effort, since reaching agents needs no right to
// read nodes (--via=pod-proxy).
func (s *skewCheck) kubeletVersion(ctx context.Context, node string) string {
	s.mu.Lock()
	v, known := s.kubelets[node]
	nodes := s.nodes
	s.mu.Unlock()
	if known || node == "" || nodes == nil {
		return v
	}
	n, err := nodes.Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		klog.V(2).InfoS("Not checking the kubelet's version", "node", node, "err", err)
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			// The same answer for every other node: ask no more.
			s.mu.Lock()
			s.nodes = nil
			s.mu.Unlock()
		}
		return ""
	}
	return n.Status.NodeInfo.KubeletVersion
}

// checked counts a node as checked and warns when it was the last.
func (s *skewCheck) checked() {
	s.mu.Lock()
	s.left--
	last := s.left == 0
	s.mu.Unlock()
	if last {
		s.warn()
	}
}

// warn prints the warnings about the nodes checked so far, the first time
// only: after the last node's check, or when the fan-out ends without
// checking every node.
func (s *skewCheck) warn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.printed {
		return
	}
	s.printed = true
	for _, w := range skewWarnings(s.found) {
		printers.PrintLine(s.out, "Warning: %s", w)
	}
}

// skewWarnings says which agents are of another release than this
// kubectl-podsrc or serve another API version, and which kubelets are of
// another minor version than the one their agent reproduces: one warning
// per kind of skew and versions, naming every node it concerns.
func skewWarnings(found []NodeVersion) []string {
	// The kinds of skew, one warning each.
	type kind int
	const (
		releaseSkew kind = iota
		apiVersionSkew
		kubeletSkew
	)
	type key struct {
		kind kind
		a, b string
	}
	var keys []key
	nodes := map[key][]string{}
	add := func(k key, node string) {
		if _, ok := nodes[k]; !ok {
			keys = append(keys, k)
		}
		nodes[k] = append(nodes[k], node)
	}
	sorted := slices.Clone(found)
	slices.SortFunc(sorted, func(x, y NodeVersion) int { return strings.Compare(x.Node, y.Node) })
	for _, n := range sorted {
		if n.Agent == nil {
			continue
		}
		if !sameMinor(version.Version, n.Agent.AgentVersion) {
			add(key{releaseSkew, n.Agent.AgentVersion, ""}, n.Node)
		}
		if n.Agent.ServedVersion != "" && n.Agent.ServedVersion != v1alpha1.VersionName {
			add(key{apiVersionSkew, n.Agent.ServedVersion, ""}, n.Node)
		}
		if n.NodeKubeletVersion != "" && !sameMinor(n.NodeKubeletVersion, n.Agent.ReproducedKubeletVersion) {
			add(key{kubeletSkew, n.NodeKubeletVersion, n.Agent.ReproducedKubeletVersion}, n.Node)
		}
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		ns := nodes[k]
		switch k.kind {
		case releaseSkew:
			w := fmt.Sprintf("kubectl-podsrc %s and the %s %s (%s) are different releases; run kubectl podsrc deploy to run this release's agent",
				version.Version, plural(ns, "agent on", "agents on"), nodeList(ns), k.a)
			if k.a != client.UnknownVersion {
				w += ", or install kubectl-podsrc " + k.a
			}
			out = append(out, w)
		case apiVersionSkew:
			out = append(out, fmt.Sprintf("the %s %s %s %s/%s, this kubectl-podsrc speaks %s",
				plural(ns, "agent on", "agents on"), nodeList(ns), plural(ns, "serves", "serve"), v1alpha1.GroupName, k.a, v1alpha1.GroupVersion))
		case kubeletSkew:
			out = append(out, fmt.Sprintf("%s %s kubelet %s, but %s kubelet %s: what podsrc shows may differ from what this kubelet does; %s",
				nodeList(ns), plural(ns, "runs", "run"), k.a, plural(ns, "its agent reproduces", "their agents reproduce"), k.b, kubeletminor.SkewAdvice(k.a)))
		}
	}
	return out
}

// maxNamed bounds the nodes a warning names.
const maxNamed = 5

// nodeList names nodes in a sentence: "node a", "nodes a and b",
// "nodes a, b, c, d, e and 3 more".
func nodeList(nodes []string) string {
	if len(nodes) == 1 {
		return "node " + nodes[0]
	}
	if len(nodes) > maxNamed {
		return fmt.Sprintf("nodes %s and %d more", strings.Join(nodes[:maxNamed], ", "), len(nodes)-maxNamed)
	}
	return fmt.Sprintf("nodes %s and %s", strings.Join(nodes[:len(nodes)-1], ", "), nodes[len(nodes)-1])
}

// plural returns one or many after the number of nodes.
func plural(nodes []string, one, many string) string {
	if len(nodes) == 1 {
		return one
	}
	return many
}

// sameMinor reports whether two versions share major and minor; unparsable
// versions only match themselves.
func sameMinor(a, b string) bool {
	va, erra := utilversion.ParseGeneric(strings.TrimSpace(a))
	vb, errb := utilversion.ParseGeneric(strings.TrimSpace(b))
	if erra != nil || errb != nil {
		return a == b
	}
	return va.Major() == vb.Major() && va.Minor() == vb.Minor()
}
