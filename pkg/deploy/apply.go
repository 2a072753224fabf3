package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// FieldManager is the server-side apply field manager of deploy.
const FieldManager = "kubectl-podsrc"

// Cluster is what deploy and undeploy write through.
type Cluster struct {
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
}

// resource is where one object lives on the API server.
type resource struct {
	obj        *unstructured.Unstructured
	mapping    *meta.RESTMapping
	namespaced bool
}

// describe names the object as kubectl apply does: kind.group/name.
func (r resource) describe() string {
	gk := r.mapping.GroupVersionKind.GroupKind()
	gk.Kind = strings.ToLower(gk.Kind)
	return fmt.Sprintf("%s/%s", gk.String(), r.obj.GetName())
}

func (r resource) client(c *Cluster) dynamic.ResourceInterface {
	if r.namespaced {
		return c.Dynamic.Resource(r.mapping.Resource).Namespace(r.obj.GetNamespace())
	}
	return c.Dynamic.Resource(r.mapping.Resource)
}

// resources maps every object to its resource.
func (c *Cluster) resources(objs []*unstructured.Unstructured) ([]resource, error) {
	out := make([]resource, 0, len(objs))
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		m, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("finding the API resource of %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		out = append(out, resource{obj: obj, mapping: m, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace})
	}
	return out, nil
}

// checkAccess asks the API server whether the caller may do each verb to
// each object, and names every refusal: nothing is written before it
// passes.
func (c *Cluster) checkAccess(ctx context.Context, rs []resource, verbs ...string) error {
	denied, err := c.denials(ctx, rs, verbs...)
	if err != nil {
		return err
	}
	return deniedError(denied)
}

// denials lists what the caller may not do of verbs to rs, one line per
// object: "get, create namespaces "podsrc-system"".
func (c *Cluster) denials(ctx context.Context, rs []resource, verbs ...string) ([]string, error) {
	var denied []string
	for _, r := range rs {
		gr := r.mapping.Resource
		var no []string
		var ra *authorizationv1.ResourceAttributes
		for _, verb := range verbs {
			ra = &authorizationv1.ResourceAttributes{Verb: verb, Group: gr.Group, Resource: gr.Resource, Name: r.obj.GetName()}
			if r.namespaced {
				ra.Namespace = r.obj.GetNamespace()
			}
			ok, _, err := c.allowed(ctx, ra)
			if err != nil {
				return nil, err
			}
			if !ok {
				no = append(no, verb)
			}
		}
		if len(no) > 0 {
			ra.Verb = strings.Join(no, ", ")
			denied = append(denied, describeAttributes(ra, ""))
		}
	}
	return denied, nil
}

// deniedError says what the caller may not do, or is nil.
func deniedError(denied []string) error {
	if len(denied) == 0 {
		return nil
	}
	return fmt.Errorf("you may not:\n  %s\nnothing was changed; ask a cluster administrator to run this, or to grant these", strings.Join(denied, "\n  "))
}

// allowed asks one SelfSubjectAccessReview.
func (c *Cluster) allowed(ctx context.Context, ra *authorizationv1.ResourceAttributes) (bool, string, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}
	res, err := c.Client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, "", fmt.Errorf("asking the API server whether you may %s: %w", describeAttributes(ra, ""), err)
	}
	return res.Status.Allowed, res.Status.Reason, nil
}

// describeAttributes says what was asked, as kubectl auth can-i would.
func describeAttributes(ra *authorizationv1.ResourceAttributes, reason string) string {
	res := ra.Resource
	if ra.Group != "" {
		res += "." + ra.Group
	}
	s := fmt.Sprintf("%s %s %q", ra.Verb, res, ra.Name)
	if ra.Namespace != "" {
		s += " in namespace " + ra.Namespace
	}
	if reason != "" {
		s += " (" + reason + ")"
	}
	return s
}

// Apply writes objs, the rendered manifest, and deletes the DaemonSets of
// layouts no node has any more. It first checks that every write may be
// made (access reviews, then a server-side dry run of every object whose
// namespace exists, which also catches what a review cannot: RBAC
// escalation, admission), so a caller without the rights changes nothing.
// A namespace that exists but was not made by deploy is used, not changed.
// Running it again changes nothing.
func (c *Cluster) Apply(ctx context.Context, objs []*unstructured.Unstructured, namespace string, out, errOut io.Writer) error {
	// Whether the namespace is deploy's decides what is written, so it is
	// read first, if the caller may; if not, that is one more refusal below.
	nsExists := namespaceAbsent
	canGet, _, err := c.allowed(ctx, &authorizationv1.ResourceAttributes{Verb: "get", Resource: "namespaces", Name: namespace})
	if err != nil {
		return err
	}
	if canGet {
		if nsExists, err = c.ownNamespace(ctx, namespace); err != nil {
			return err
		}
	}
	if nsExists == namespaceForeign {
		fmt.Fprintf(errOut, "Warning: namespace %s exists and was not made by kubectl podsrc deploy: it is used as it is (it must admit privileged pods) and undeploy will leave it\n", namespace)
		objs = withoutKind(objs, "Namespace")
	}
	rs, err := c.resources(objs)
	if err != nil {
		return err
	}
	denied, err := c.denials(ctx, rs, "get", "create", "patch")
	if err != nil {
		return err
	}
	if err := deniedError(denied); err != nil {
		return err
	}
	var stale []resource
	if nsExists != namespaceAbsent {
		if stale, err = c.staleLayoutObjects(ctx, namespace, objs); err != nil {
			return err
		}
	}
	if err := c.checkAccess(ctx, stale, "delete"); err != nil {
		return err
	}
	for _, r := range rs {
		if r.namespaced && nsExists == namespaceAbsent {
			continue
		}
		if _, err := c.apply(ctx, r, true); err != nil {
			return fmt.Errorf("%w; nothing was changed", err)
		}
	}
	for _, r := range rs {
		before, err := r.client(c).Get(ctx, r.obj.GetName(), metav1.GetOptions{})
		existed := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading %s: %w", r.describe(), err)
		}
		after, err := c.apply(ctx, r, false)
		if err != nil {
			return err
		}
		switch {
		case !existed:
			fmt.Fprintf(out, "%s created\n", r.describe())
		case before.GetResourceVersion() == after.GetResourceVersion():
			fmt.Fprintf(out, "%s unchanged\n", r.describe())
		default:
			fmt.Fprintf(out, "%s configured\n", r.describe())
		}
	}
	for _, r := range stale {
		err := r.client(c).Delete(ctx, r.obj.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s, whose layout no node has now: %w", r.describe(), err)
		}
		fmt.Fprintf(out, "%s deleted (no selected node has its layout now)\n", r.describe())
	}
	return nil
}

// namespaceState is what deploy finds of its namespace.
type namespaceState int

const (
	namespaceAbsent namespaceState = iota
	namespaceOurs
	namespaceForeign
)

// ownNamespace says whether the namespace exists and whether deploy made it
// (it carries PartOfLabel).
func (c *Cluster) ownNamespace(ctx context.Context, name string) (namespaceState, error) {
	ns, err := c.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return namespaceAbsent, nil
	case err != nil:
		return 0, fmt.Errorf("reading namespace %s: %w", name, err)
	}
	sel, err := labels.Parse(PartOfLabel)
	if err != nil {
		return 0, err
	}
	if sel.Matches(labels.Set(ns.Labels)) {
		return namespaceOurs, nil
	}
	return namespaceForeign, nil
}

// withoutKind returns objs without those of kind.
func withoutKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != kind {
			out = append(out, o)
		}
	}
	return out
}

// staleLayoutObjects lists deploy's DaemonSets and Secrets in namespace that
// objs does not name: those of the layouts no selected node has now.
func (c *Cluster) staleLayoutObjects(ctx context.Context, namespace string, objs []*unstructured.Unstructured) ([]resource, error) {
	keep := map[string]bool{}
	for _, obj := range objs {
		keep[obj.GetKind()+"/"+obj.GetName()] = true
	}
	all, err := c.layoutObjects(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var out []resource
	for _, r := range all {
		if !keep[r.obj.GetKind()+"/"+r.obj.GetName()] {
			out = append(out, r)
		}
	}
	return out, nil
}

// perLayout are the kinds deploy makes one of per layout, found by
// PartOfLabel and their names: agentName first, suffix last.
var perLayout = []struct {
	gvk    schema.GroupVersionKind
	gvr    schema.GroupVersionResource
	suffix string
}{
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, daemonSetResource, ""},
	{schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, urlSecretSuffix},
}

// layoutObjects lists deploy's DaemonSets in namespace, and the Secrets of
// their static pod URLs.
func (c *Cluster) layoutObjects(ctx context.Context, namespace string) ([]resource, error) {
	var out []resource
	for _, k := range perLayout {
		list, err := c.Dynamic.Resource(k.gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: PartOfLabel})
		if err != nil {
			return nil, fmt.Errorf("listing the %s (%s) in namespace %s: %w", k.gvr.Resource, PartOfLabel, namespace, err)
		}
		m, err := c.Mapper.RESTMapping(k.gvk.GroupKind(), k.gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("finding the API resource of %s: %w", k.gvr.Resource, err)
		}
		for i := range list.Items {
			name := list.Items[i].GetName()
			if strings.HasPrefix(name, agentName) && strings.HasSuffix(name, k.suffix) {
				out = append(out, resource{obj: &list.Items[i], mapping: m, namespaced: true})
			}
		}
	}
	return out, nil
}

// apply applies one object server-side, taking the fields over from other
// managers (kubectl apply -f of the same manifest).
func (c *Cluster) apply(ctx context.Context, r resource, dryRun bool) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(r.obj.Object)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", r.describe(), err)
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: FieldManager, Force: &force}
	what := "applying"
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
		what = "applying (server-side dry run)"
	}
	res, err := r.client(c).Patch(ctx, r.obj.GetName(), types.ApplyPatchType, data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, r.describe(), err)
	}
	return res, nil
}

// daemonSetResource is the GroupVersionResource of DaemonSets.
var daemonSetResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
