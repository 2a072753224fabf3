package deploy

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
)

// Undeploy deletes what deploy made: every DaemonSet of deploy in namespace
// and the Secrets of their static pod URLs, then the manifest's other
// objects in reverse order, the namespace last (only if deploy made it). Only objects that carry PartOfLabel are touched.
// It checks that every deletion may be made before the first, prints each
// object it removed, and returns what it removed; a second run finds
// nothing.
func (c *Cluster) Undeploy(ctx context.Context, objs []*unstructured.Unstructured, namespace string, out io.Writer) (Removed, error) {
	state, err := c.ownNamespace(ctx, namespace)
	if err != nil {
		return Removed{}, err
	}
	var found []resource
	if state != namespaceAbsent {
		if found, err = c.layoutObjects(ctx, namespace); err != nil {
			return Removed{}, err
		}
	}
	rs, err := c.resources(objs)
	if err != nil {
		return Removed{}, err
	}
	part, err := labels.Parse(PartOfLabel)
	if err != nil {
		return Removed{}, err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if r.obj.GetKind() == "DaemonSet" || (r.namespaced && state == namespaceAbsent) {
			continue
		}
		if r.obj.GetKind() == "Namespace" && state != namespaceOurs {
			continue
		}
		cur, err := r.client(c).Get(ctx, r.obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return Removed{}, fmt.Errorf("reading %s: %w", r.describe(), err)
		}
		if !part.Matches(labels.Set(cur.GetLabels())) {
			continue
		}
		found = append(found, resource{obj: cur, mapping: r.mapping, namespaced: r.namespaced})
	}
	if err := c.checkAccess(ctx, found, "delete"); err != nil {
		return Removed{}, err
	}
	var rm Removed
	for _, r := range found {
		err := r.client(c).Delete(ctx, r.obj.GetName(), metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return rm, fmt.Errorf("deleting %s: %w", r.describe(), err)
		}
		fmt.Fprintf(out, "%s deleted\n", r.describe())
		rm.Objects = append(rm.Objects, r.describe())
		if r.obj.GetKind() == "Namespace" {
			rm.Namespace = true
		}
	}
	return rm, nil
}

// Removed is what Undeploy deleted.
type Removed struct {
	// Objects are kind.group/name of each.
	Objects []string
	// Namespace says the namespace was among them.
	Namespace bool
}

// WaitNamespaceGone waits until the namespace no longer exists, so that the
// next deploy does not meet it terminating.
func (c *Cluster) WaitNamespaceGone(ctx context.Context, namespace string, interval time.Duration) error {
	err := wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("waiting for namespace %s to be deleted: %w", namespace, err)
	}
	return nil
}
