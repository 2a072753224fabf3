package cli

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/podsrc/podsrc/pkg/why"
)

// clusterFacts asks the API server, with the user's credentials, what the
// analysis needs and the agent does not hold. Without a client every
// lookup is skipped with the reason, but the node's when an archive
// (--from) recorded it: recorded.
type clusterFacts struct {
	cs       kubernetes.Interface
	skipped  string
	recorded *corev1.Node
}

// pod gets the pod of that namespace and name.
func (c clusterFacts) pod(ctx context.Context, ns, name string) why.Lookup[*corev1.Pod] {
	if c.cs == nil {
		return why.Lookup[*corev1.Pod]{Skipped: c.skipped}
	}
	p, err := c.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	return why.Lookup[*corev1.Pod]{Value: p, Err: err}
}

// namespace gets the namespace.
func (c clusterFacts) namespace(ctx context.Context, name string) why.Lookup[*corev1.Namespace] {
	if c.cs == nil {
		return why.Lookup[*corev1.Namespace]{Skipped: c.skipped}
	}
	n, err := c.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	return why.Lookup[*corev1.Namespace]{Value: n, Err: err}
}

// node gets the node.
func (c clusterFacts) node(ctx context.Context, name string) why.Lookup[*corev1.Node] {
	if c.recorded != nil && c.recorded.Name == name {
		return why.Lookup[*corev1.Node]{Value: c.recorded}
	}
	if c.cs == nil {
		return why.Lookup[*corev1.Node]{Skipped: c.skipped}
	}
	n, err := c.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	return why.Lookup[*corev1.Node]{Value: n, Err: err}
}

// events lists the Events about an object of that kind, namespace (all
// namespaces when empty) and name.
func (c clusterFacts) events(ctx context.Context, kind, ns, name string) why.Lookup[[]corev1.Event] {
	if c.cs == nil {
		return why.Lookup[[]corev1.Event]{Skipped: c.skipped}
	}
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}
	if ns != "" {
		sel["involvedObject.namespace"] = ns
	}
	l, err := c.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel.AsSelector().String()})
	if err != nil {
		return why.Lookup[[]corev1.Event]{Err: err}
	}
	// The selector again, for API servers (and fakes) that ignore it.
	items := []corev1.Event{}
	for _, e := range l.Items {
		o := e.InvolvedObject
		if o.Kind == kind && o.Name == name && (ns == "" || o.Namespace == ns) {
			items = append(items, e)
		}
	}
	return why.Lookup[[]corev1.Event]{Value: items}
}

// nodePods lists the pods bound to the node.
func (c clusterFacts) nodePods(ctx context.Context, node string) why.Lookup[[]corev1.Pod] {
	if c.cs == nil {
		return why.Lookup[[]corev1.Pod]{Skipped: c.skipped}
	}
	l, err := c.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
	if err != nil {
		return why.Lookup[[]corev1.Pod]{Err: err}
	}
	return why.Lookup[[]corev1.Pod]{Value: l.Items}
}
