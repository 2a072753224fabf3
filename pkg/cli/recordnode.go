package cli

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive"
)

// nodeClaim is a node's name an agent's answer gives, and where.
type nodeClaim struct{ where, node string }

// recordedNode names c's answers by the node the archive records: named,
// the node the user asked for (whose agent the API server's proxy
// reached), or with --agent-url and no node named, the one the agent's
// version names, which must be a node's name. Every answer that names a
// node must name that one: an agent that says it runs for another node
// fails the recording, and its word never names the archive.
func recordedNode(named string, c *archive.Contents) error {
	node := named
	if node == "" {
		node = c.Version.NodeName
		if errs := validation.IsDNS1123Subdomain(node); len(errs) > 0 {
			return fmt.Errorf("the agent's version names node %q, which is not a node's name (%s): nothing was recorded", node, strings.Join(errs, "; "))
		}
	}
	claims := []nodeClaim{
		{"version", c.Version.NodeName},
		{"sources", c.Sources.NodeName},
		{"pods", c.Pods.NodeName},
		{"pod details", c.PodDetails.NodeName},
		{"PLEG status", c.PLEG.NodeName},
	}
	if c.KubeletConfig != nil {
		claims = append(claims, nodeClaim{"kubelet configuration", c.KubeletConfig.NodeName})
	}
	for _, s := range c.Sources.Items {
		claims = append(claims, nodeClaim{fmt.Sprintf("source %q", s.Name), s.NodeName})
	}
	for _, p := range append(append([]v1alpha1.PodInfo(nil), c.Pods.Items...), c.PodDetails.Items...) {
		claims = append(claims, nodeClaim{fmt.Sprintf("pod %q", p.Namespace+"/"+p.Name), p.NodeName})
	}
	for _, cl := range claims {
		if cl.node != "" && cl.node != node {
			return fmt.Errorf("the agent of node %q names node %q in its %s: an agent of another node, or one not to be trusted; nothing was recorded", node, cl.node, cl.where)
		}
	}
	c.Version.NodeName, c.Sources.NodeName, c.Pods.NodeName, c.PodDetails.NodeName, c.PLEG.NodeName = node, node, node, node, node
	if c.KubeletConfig != nil {
		c.KubeletConfig.NodeName = node
	}
	return nil
}
