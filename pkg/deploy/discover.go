package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// NodeLayout is one node's layout and where it came from, and its
// kubelet's version.
type NodeLayout struct {
	Node   string
	Layout Layout
	// Kubelet is the node's status.nodeInfo.kubeletVersion, and Minor its
	// minor (0 when it cannot be read).
	Kubelet string
	Minor   kubeletminor.Minor
	// Assumed names the distribution whose layout was assumed, and
	// Reason why /configz was not used; both empty when it was.
	Assumed string
	Reason  string
}

// configz is the body of the kubelet's /configz.
type configz struct {
	KubeletConfig *kubeletconfig.KubeletConfiguration `json:"kubeletconfig"`
}

// maxConfigz bounds a /configz answer: a kubelet's configuration is a few
// KiB, and a node must not make deploy buffer without end.
const maxConfigz = 1 << 20

// ReadConfigz reads a kubelet's running configuration through the API
// server's node proxy (/api/v1/nodes/<node>/proxy/configz), which needs get
// nodes/proxy. It reads at most maxConfigz bytes of the answer, an error's
// included, and quotes none of it.
func ReadConfigz(ctx context.Context, cs kubernetes.Interface, node string) (*kubeletconfig.KubeletConfiguration, error) {
	where := "/api/v1/nodes/" + node + "/proxy/configz"
	rc, ok := cs.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil || rc.Client == nil {
		return nil, fmt.Errorf("reading %s: the client cannot make HTTP requests", where)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rc.Get().AbsPath("/api/v1/nodes", node, "proxy", "configz").URL().String(), nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", where, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := rc.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", where, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxConfigz+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", where, err)
	case len(body) > maxConfigz:
		return nil, fmt.Errorf("reading %s: %w", where, errConfigzTooLarge)
	case resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("reading %s: %w", where, errConfigzForbidden)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("reading %s: HTTP %d", where, resp.StatusCode)
	}
	var cz configz
	if err := json.Unmarshal(body, &cz); err != nil {
		return nil, fmt.Errorf("decoding the kubelet configuration of node %s from /configz: %w", node, err)
	}
	if cz.KubeletConfig == nil {
		return nil, fmt.Errorf("node %s: /configz has no kubeletconfig", node)
	}
	return cz.KubeletConfig, nil
}

// errConfigzTooLarge is the reason given when a kubelet's /configz answers
// more than maxConfigz bytes.
var errConfigzTooLarge = fmt.Errorf("the answer is longer than %d MiB, the most deploy reads", maxConfigz>>20)

// errConfigzForbidden is the reason given when the caller may not read a
// kubelet's /configz.
var errConfigzForbidden = errors.New("forbidden: you may not get nodes/proxy")

// configzConcurrency bounds how many kubelets are asked at once.
const configzConcurrency = 16

// Discover finds the layout of every node: from its kubelet's /configz, or
// assumed from what the node says of itself when that cannot be read. The
// overrides apply to both. A layout that names host paths outside the
// kubelet locations and the overrides' allowed paths is refused. The result
// is sorted by node name.
func Discover(ctx context.Context, cs kubernetes.Interface, nodes []corev1.Node, over Overrides) ([]NodeLayout, error) {
	out := make([]NodeLayout, len(nodes))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(configzConcurrency)
	for i := range nodes {
		n := &nodes[i]
		g.Go(func() error {
			nl := NodeLayout{Node: n.Name, Kubelet: n.Status.NodeInfo.KubeletVersion}
			nl.Minor, _ = kubeletminor.Of(nl.Kubelet)
			kc, err := ReadConfigz(gctx, cs, n.Name)
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				k := AssumeLayout(n)
				nl.Layout, nl.Assumed, nl.Reason = k.Layout, k.Name, err.Error()
			} else {
				nl.Layout = LayoutFromKubelet(kc)
			}
			nl.Layout = over.Apply(nl.Layout)
			out[i] = nl
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	for _, nl := range out {
		if err := nl.Layout.validate(); err != nil {
			return nil, fmt.Errorf("node %s: %w; override it with --static-pod-path or --runtime-endpoint, or leave the node out with --node-selector", nl.Node, err)
		}
	}
	if err := checkHostPaths(out, over.allowedHostPaths()); err != nil {
		return nil, err
	}
	return out, nil
}

// ListNodes lists the nodes matching the label selector (all for ""), the
// Linux ones only: the agent is a Linux program.
func ListNodes(ctx context.Context, cs kubernetes.Interface, selector string) ([]corev1.Node, error) {
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("listing nodes (selector %q): %w", selector, err)
	}
	var out []corev1.Node
	for _, n := range list.Items {
		if os, ok := n.Labels[corev1.LabelOSStable]; ok && os != "linux" {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}
