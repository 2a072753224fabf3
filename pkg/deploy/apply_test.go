package deploy

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podsrc/podsrc/manifests"
)

// testMapper knows the kinds of manifests/daemonset.yaml.
func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range []struct {
		gvk   schema.GroupVersionKind
		scope meta.RESTScope
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot},
		{schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, meta.RESTScopeNamespace},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}, meta.RESTScopeRoot},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, meta.RESTScopeNamespace},
	} {
		m.Add(k.gvk, k.scope)
	}
	return m
}

// TestApplyWithoutRights checks that a caller refused one verb on one
// object gets an error naming it, and that nothing is written.
func TestApplyWithoutRights(t *testing.T) {
	objs, err := Render(manifests.DaemonSet, RenderOptions{Namespace: "podsrc-system", Image: "img", Groups: []Group{{Layout: DefaultLayout(), Default: true}}})
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset()
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		ra := r.Spec.ResourceAttributes
		r.Status.Allowed = !(ra.Verb == "create" && ra.Resource == "clusterrolebindings")
		return true, r, nil
	})
	dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	c := &Cluster{Client: cs, Dynamic: dyn, Mapper: testMapper()}
	var out, errOut bytes.Buffer
	err = c.Apply(context.Background(), objs, "podsrc-system", &out, &errOut)
	want := `you may not:
  create clusterrolebindings.rbac.authorization.k8s.io "podsrc-agent"
nothing was changed`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want it to start with %q", err, want)
	}
	for _, a := range dyn.Actions() {
		t.Errorf("the refused deploy wrote: %s %s", a.GetVerb(), a.GetResource())
	}
	if out.Len() > 0 {
		t.Errorf("output of a refused deploy: %s", out.String())
	}
}

// TestStaleLayoutObjects checks that the DaemonSet of a layout no node has
// any more is pruned with the Secret of its static pod URL, and that
// nothing deploy did not make, nor what it renders now, is.
func TestStaleLayoutObjects(t *testing.T) {
	obj := func(apiVersion, kind, name string, lbls map[string]string) runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetName(name)
		u.SetNamespace("podsrc-system")
		u.SetLabels(lbls)
		return u
	}
	ours := map[string]string{"app.kubernetes.io/part-of": "podsrc"}
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		daemonSetResource: "DaemonSetList", {Version: "v1", Resource: "secrets"}: "SecretList",
	},
		obj("apps/v1", "DaemonSet", "podsrc-agent", ours),
		obj("apps/v1", "DaemonSet", "podsrc-agent-0ld-kubelet1-36", ours),
		obj("v1", "Secret", "podsrc-agent-0ld-kubelet1-36-static-pod-url", ours),
		obj("v1", "Secret", "podsrc-agent-token", ours),
		obj("v1", "Secret", "podsrc-agent-theirs-static-pod-url", nil),
		obj("v1", "Secret", "podsrc-agent-n3w-kubelet1-36-static-pod-url", ours),
	)
	m := testMapper().(*meta.DefaultRESTMapper)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	c := &Cluster{Client: fake.NewClientset(), Dynamic: dyn, Mapper: m}
	keep := []*unstructured.Unstructured{
		obj("apps/v1", "DaemonSet", "podsrc-agent", ours).(*unstructured.Unstructured),
		obj("v1", "Secret", "podsrc-agent-n3w-kubelet1-36-static-pod-url", ours).(*unstructured.Unstructured),
	}
	stale, err := c.staleLayoutObjects(context.Background(), "podsrc-system", keep)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range stale {
		got = append(got, r.describe())
	}
	want := []string{"daemonset.apps/podsrc-agent-0ld-kubelet1-36", "secret/podsrc-agent-0ld-kubelet1-36-static-pod-url"}
	if !cmp.Equal(got, want) {
		t.Errorf("stale %v, want %v", got, want)
	}
}
