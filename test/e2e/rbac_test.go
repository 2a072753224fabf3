package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/podsrc/podsrc/pkg/client"
)

// userKubeconfig makes ServiceAccount name in agentTestNS, optionally bound
// to a viewer role, and writes a kubeconfig with a token of it.
func userKubeconfig(t *testing.T, e *env, name string, bind func(ctx context.Context, subject rbacv1.Subject) error) string {
	t.Helper()
	c := e.c
	ctx := context.Background()
	sas := c.Client.CoreV1().ServiceAccounts(agentTestNS)
	if _, err := sas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if bind != nil {
		if err := bind(ctx, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: agentTestNS}); err != nil {
			t.Fatal(err)
		}
	}
	exp := int64(600)
	tr, err := sas.CreateToken(ctx, name, &authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.Config.CAData, CertificateAuthority: c.Config.CAFile}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: name}
	cfg.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func testRBAC(t *testing.T, e *env) {
	c := e.c
	rbac := c.Client.RbacV1()
	podUser := userKubeconfig(t, e, "e2e-pod-viewer", func(ctx context.Context, s rbacv1.Subject) error {
		_, err := rbac.RoleBindings(client.AgentNamespace).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-pod-viewer"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: client.PodProxyRole},
			Subjects:   []rbacv1.Subject{s},
		}, metav1.CreateOptions{})
		t.Cleanup(func() {
			_ = rbac.RoleBindings(client.AgentNamespace).Delete(context.Background(), "e2e-pod-viewer", metav1.DeleteOptions{})
		})
		return err
	})
	nodeUser := userKubeconfig(t, e, "e2e-node-viewer", func(ctx context.Context, s rbacv1.Subject) error {
		_, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-node-viewer"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: client.NodeProxyRole},
			Subjects:   []rbacv1.Subject{s},
		}, metav1.CreateOptions{})
		t.Cleanup(func() {
			_ = rbac.ClusterRoleBindings().Delete(context.Background(), "e2e-node-viewer", metav1.DeleteOptions{})
		})
		return err
	})
	nobody := userKubeconfig(t, e, "e2e-nobody", nil)

	type run struct {
		kubeconfig, via string
		ok              bool
		wantMsg         []string
	}
	for _, r := range []run{
		{podUser, "pod-proxy", true, nil},
		{podUser, "node-proxy", false, []string{"forbidden", "nodes/proxy", client.NodeProxyRole, "--via=pod-proxy"}},
		{nodeUser, "node-proxy", true, nil},
		{nobody, "node-proxy", false, []string{"forbidden", "nodes/proxy", client.NodeProxyRole}},
		{nobody, "pod-proxy", false, []string{"forbidden", "pods/proxy", client.PodProxyRole}},
	} {
		user := strings.TrimSuffix(filepath.Base(r.kubeconfig), ".kubeconfig")
		// RBAC of a new binding reaches the authorizer's cache quickly but
		// not at once: poll the allowed runs.
		var out string
		var err error
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, err = e.runPlugin(t, false, nil, "sources", c.NodeName, "--kubeconfig="+r.kubeconfig, "--via="+r.via)
			if !r.ok || err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(pollInterval)
		}
		switch {
		case r.ok && err != nil:
			t.Errorf("%s --via=%s: %v\n%s", user, r.via, err, out)
		case r.ok && !strings.Contains(out, c.StaticPodDir):
			t.Errorf("%s --via=%s: no file source row:\n%s", user, r.via, out)
		case !r.ok && err == nil:
			t.Errorf("%s --via=%s succeeded, want forbidden:\n%s", user, r.via, out)
		case !r.ok:
			for _, m := range r.wantMsg {
				if !strings.Contains(out, m) {
					t.Errorf("%s --via=%s: the error does not say %q:\n%s", user, r.via, m, out)
				}
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); n > 2 {
				t.Errorf("%s --via=%s: the forbidden message takes %d lines, want a short one:\n%s", user, r.via, n+1, out)
			}
		}
	}

	// The agent's own ServiceAccount: what its ClusterRole grants, and
	// nothing more.
	agentSA := "system:serviceaccount:" + client.AgentNamespace + ":podsrc-agent"
	ctx := context.Background()
	for _, check := range []struct {
		attrs authv1.ResourceAttributes
		want  bool
	}{
		{authv1.ResourceAttributes{Verb: "list", Resource: "pods"}, true},
		{authv1.ResourceAttributes{Verb: "watch", Resource: "pods"}, true},
		{authv1.ResourceAttributes{Verb: "watch", Resource: "nodes"}, true},
		{authv1.ResourceAttributes{Verb: "create", Resource: "pods", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "delete", Resource: "pods", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "update", Resource: "pods", Subresource: "status", Namespace: agentTestNS}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: client.AgentNamespace}, false},
		{authv1.ResourceAttributes{Verb: "list", Resource: "secrets"}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "nodes", Subresource: "proxy", Name: c.NodeName}, false},
		{authv1.ResourceAttributes{Verb: "get", Resource: "pods", Subresource: "proxy", Namespace: client.AgentNamespace}, false},
		{authv1.ResourceAttributes{Verb: "patch", Resource: "nodes", Name: c.NodeName}, false},
		{authv1.ResourceAttributes{Verb: "create", Resource: "events", Namespace: client.AgentNamespace}, false},
	} {
		attrs := check.attrs
		sar, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
			User: agentSA, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + client.AgentNamespace, "system:authenticated"},
			ResourceAttributes: &attrs,
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed != check.want {
			t.Errorf("%s may %s %s/%s in %q: %v, want %v (%s)", agentSA, attrs.Verb, attrs.Resource, attrs.Subresource, attrs.Namespace, sar.Status.Allowed, check.want, sar.Status.Reason)
		}
	}
}
