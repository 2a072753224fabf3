package apisource

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/test/cluster"
)

// clusterWait bounds every wait on the real cluster, which includes the
// kubelet-like one second node sync period and API server restarts.
const clusterWait = 60 * time.Second

// apiEnv is one cluster test's view of the cluster: its own node name
// (a Node object without a kubelet, so its pods never run) and helpers
// that remove what they create when the test ends.
type apiEnv struct {
	t      *testing.T
	c      *cluster.Cluster
	client kubernetes.Interface
	node   string
}

// uniqueName returns prefix followed by a random suffix.
func uniqueName(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	c := cluster.Get(t)
	return &apiEnv{t: t, c: c, client: c.Client, node: uniqueName(t, "podsrc-api-test-")}
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	t.Cleanup(cancel)
	return ctx
}

// createNode creates a Node object named name, deleted when the test ends.
func (e *apiEnv) createNode(name string) {
	e.t.Helper()
	ctx := bounded(e.t)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"podsrc.test/api": "true"}}}
	if _, err := e.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating node %s: %v", name, err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
		defer cancel()
		if err := e.client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Errorf("deleting node %s: %v", name, err)
		}
	})
}

// createPod creates a pod bound to node in namespace ns and returns it as
// created; it is force-deleted when the test ends (no kubelet would ever
// finish a graceful deletion).
func (e *apiEnv) createPod(ns, name, node string) *v1.Pod {
	e.t.Helper()
	ctx := bounded(e.t)
	grace := int64(1)
	no := false
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"podsrc.test/api": "true"}},
		Spec: v1.PodSpec{
			NodeName:                      node,
			AutomountServiceAccountToken:  &no,
			TerminationGracePeriodSeconds: &grace,
			Containers: []v1.Container{{
				Name: "main", Image: e.c.TestImage, ImagePullPolicy: v1.PullNever, Args: []string{"-sleep", "0"},
			}},
		},
	}
	var created *v1.Pod
	var lastErr error
	for created == nil {
		var err error
		created, err = e.client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			// A namespace's default ServiceAccount may not exist yet.
			created, lastErr = nil, err
			select {
			case <-ctx.Done():
				e.t.Fatalf("creating pod %s/%s: %v", ns, name, lastErr)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	e.t.Cleanup(func() { e.forceDelete(ns, name) })
	return created
}

// forceDelete deletes a pod at once.
func (e *apiEnv) forceDelete(ns, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	zero := int64(0)
	err := e.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Errorf("deleting pod %s/%s: %v", ns, name, err)
	}
}

// start runs an API source for the env's node with rc.
func (e *apiEnv) start(rc *rest.Config) (*APISource, *apiWatcher) {
	e.t.Helper()
	w := &apiWatcher{t: e.t, updates: make(chan merge.PodUpdate)}
	src, err := NewAPI(APIOptions{Config: rc, NodeName: e.node, Updates: w.updates})
	if err != nil {
		e.t.Fatal(err)
	}
	sourcetest.Run(e.t, src.Run)
	return src, w
}

// apiWatcher receives an API source's updates and remembers them all.
type apiWatcher struct {
	t       *testing.T
	updates chan merge.PodUpdate
	all     []merge.PodUpdate
}

// until receives updates until cond holds for one, and returns it.
func (w *apiWatcher) until(what string, cond func(u merge.PodUpdate) bool) merge.PodUpdate {
	w.t.Helper()
	deadline := time.After(clusterWait)
	for {
		select {
		case u := <-w.updates:
			w.all = append(w.all, u)
			if cond(u) {
				return u
			}
		case <-deadline:
			var seen []string
			for _, u := range w.all {
				seen = append(seen, strings.Join(podKeys(u), ","))
			}
			w.t.Fatalf("no update with %s within %v; saw %q", what, clusterWait, seen)
		}
	}
}

// untilPods receives updates until one carries exactly the pods keys
// ("namespace/name").
func (w *apiWatcher) untilPods(keys ...string) merge.PodUpdate {
	w.t.Helper()
	sort.Strings(keys)
	want := strings.Join(keys, ",")
	return w.until("pods ["+want+"]", func(u merge.PodUpdate) bool { return strings.Join(podKeys(u), ",") == want })
}

// podKeys returns the sorted namespace/name of an update's pods.
func podKeys(u merge.PodUpdate) []string {
	out := make([]string, 0, len(u.Pods))
	for _, p := range u.Pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	sort.Strings(out)
	return out
}

// podIn returns the pod of u with the given namespace and name, and its
// fingerprint.
func podIn(u merge.PodUpdate, ns, name string) (*v1.Pod, string) {
	for i, p := range u.Pods {
		if p.Namespace == ns && p.Name == name {
			return p, u.Fingerprints[i]
		}
	}
	return nil, ""
}

// checkSET fails unless u is a well-formed SET of the API source.
func checkSET(t *testing.T, u merge.PodUpdate, node string) {
	t.Helper()
	if u.Op != merge.Set || u.Source != v1alpha1.SourceAPI || u.Pods == nil || len(u.Fingerprints) != len(u.Pods) {
		t.Fatalf("update op %v source %q with %d pods and %d fingerprints, want a SET from %q with one fingerprint a pod",
			u.Op, u.Source, len(u.Pods), len(u.Fingerprints), v1alpha1.SourceAPI)
	}
	for i, p := range u.Pods {
		if p.Spec.NodeName != node {
			t.Errorf("pod %s/%s of node %q in the SET of node %q", p.Namespace, p.Name, p.Spec.NodeName, node)
		}
		if u.Fingerprints[i] == "" || u.Fingerprints[i] != p.ResourceVersion {
			t.Errorf("pod %s/%s: fingerprint %q, resourceVersion %q", p.Namespace, p.Name, u.Fingerprints[i], p.ResourceVersion)
		}
	}
}

// eventuallyStatus waits until cond holds for the source's status.
func eventuallyStatus(t *testing.T, src *APISource, what string, cond func(source.Status) bool) {
	t.Helper()
	deadline := time.Now().Add(clusterWait)
	for {
		st := src.Status()
		if cond(st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; status %+v", what, clusterWait, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAPISourceClusterPods(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.createNode(e.node)
	other := uniqueName(t, "podsrc-api-test-other-")
	e.createNode(other)
	src, w := e.start(e.c.Config)

	u := w.untilPods()
	checkSET(t, u, e.node)
	eventuallyStatus(t, src, "seen after the empty SET", func(st source.Status) bool {
		return st.Seen && st.UpdatesSent == 1 && len(st.Pods) == 0 && st.Checks >= 1
	})

	ctx := bounded(t)
	a := e.createPod("default", uniqueName(t, "a-"), e.node)
	u = w.untilPods("default/" + a.Name)
	checkSET(t, u, e.node)
	if _, fp := podIn(u, "default", a.Name); fp != a.ResourceVersion {
		t.Errorf("pod a: fingerprint %q, want the created resourceVersion %q", fp, a.ResourceVersion)
	}

	// Pods of another node never show up; pods of any namespace do.
	foreign := e.createPod("default", uniqueName(t, "foreign-"), other)
	b := e.createPod("kube-system", uniqueName(t, "b-"), e.node)
	u = w.untilPods("default/"+a.Name, "kube-system/"+b.Name)
	checkSET(t, u, e.node)

	// An update arrives with its new resourceVersion.
	a.Labels["step"] = "updated"
	updated, err := e.client.CoreV1().Pods("default").Update(ctx, a, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u = w.until("the updated pod", func(u merge.PodUpdate) bool {
		p, _ := podIn(u, "default", a.Name)
		return p != nil && p.Labels["step"] == "updated"
	})
	checkSET(t, u, e.node)
	if _, fp := podIn(u, "default", a.Name); fp != updated.ResourceVersion {
		t.Errorf("updated pod: fingerprint %q, want %q", fp, updated.ResourceVersion)
	}

	// A graceful deletion is an update the kubelet acts on; the removal
	// follows when the pod is gone.
	if err := e.client.CoreV1().Pods("default").Delete(ctx, a.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	u = w.until("the pod marked for deletion", func(u merge.PodUpdate) bool {
		p, _ := podIn(u, "default", a.Name)
		return p != nil && p.DeletionTimestamp != nil
	})
	checkSET(t, u, e.node)
	e.forceDelete("default", a.Name)
	u = w.untilPods("kube-system/" + b.Name)
	checkSET(t, u, e.node)

	// The last pod gone: an empty SET.
	e.forceDelete("kube-system", b.Name)
	checkSET(t, w.untilPods(), e.node)

	for _, u := range w.all {
		if p, _ := podIn(u, "default", foreign.Name); p != nil {
			t.Errorf("the pod of node %s appeared in the SETs of node %s", other, e.node)
		}
	}
	// The status follows each delivery.
	eventuallyStatus(t, src, fmt.Sprintf("the status after %d updates", len(w.all)), func(st source.Status) bool {
		return st.Seen && st.UpdatesSent == len(w.all) && len(st.Pods) == 0
	})
	if st := src.Status(); st.Source != v1alpha1.SourceAPI || st.Target != e.c.Config.Host || st.LastUpdate.IsZero() || st.LastError != "" {
		t.Errorf("status %+v", st)
	}
}

func TestAPISourceClusterNodeCreatedLate(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	early := e.createPod("default", uniqueName(t, "early-"), e.node)
	src, w := e.start(e.c.Config)

	// Like the kubelet, the source waits for the node list to sync, not for
	// the node to exist: the pods bound to the name are sent, and the status
	// says the node is missing.
	u := w.untilPods("default/" + early.Name)
	checkSET(t, u, e.node)
	eventuallyStatus(t, src, "the missing node in the status", func(st source.Status) bool {
		return st.Seen && strings.Contains(st.LastError, "node "+e.node+" not found: is --node-name right?")
	})

	e.createNode(e.node)
	late := e.createPod("default", uniqueName(t, "late-"), e.node)
	u = w.untilPods("default/"+early.Name, "default/"+late.Name)
	checkSET(t, u, e.node)
}

func TestAPISourceClusterAPIServerRestart(t *testing.T) {
	// Not parallel: the API server goes away for everyone.
	e := newAPIEnv(t)
	e.createNode(e.node)
	a := e.createPod("default", uniqueName(t, "a-"), e.node)
	src, w := e.start(e.c.Config)
	w.untilPods("default/" + a.Name)
	before := src.Status().UpdatesSent
	restarted := time.Now()

	e.c.RestartAPIServer(t)

	// Changes after the restart arrive: the source watches again.
	b := e.createPod("default", uniqueName(t, "b-"), e.node)
	u := w.untilPods("default/"+a.Name, "default/"+b.Name)
	checkSET(t, u, e.node)
	e.forceDelete("default", a.Name)
	u = w.untilPods("default/" + b.Name)
	checkSET(t, u, e.node)
	st := src.Status()
	if !st.Seen || st.UpdatesSent <= before {
		t.Errorf("status %+v, want more than %d updates sent", st, before)
	}
	// The outage is normally on record, but a reconnect that beats the
	// reflector's retry leaves none, so it is only reported.
	if st.LastErrorTime.After(restarted) {
		t.Logf("error recorded during the restart: %s", st.LastError)
	} else {
		t.Logf("no error recorded during the restart")
	}
}

func TestAPISourceClusterCredentials(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// nodeRBAC grants the service account list/watch of nodes only.
		nodeRBAC  bool
		badToken  bool
		wantError string
	}{
		{
			name:      "service account without RBAC",
			wantError: "podsrc needs list/watch nodes at cluster scope",
		},
		{
			name:      "service account that may watch nodes but not pods",
			nodeRBAC:  true,
			wantError: "podsrc needs list/watch pods at cluster scope; the ClusterRole podsrc-agent that kubectl podsrc deploy creates grants it",
		},
		{
			name:      "invalid token",
			badToken:  true,
			wantError: "rejects podsrc's credentials",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newAPIEnv(t)
			e.createNode(e.node)
			e.createPod("default", uniqueName(t, "p-"), e.node)
			token := "not-a-valid-token"
			if !tc.badToken {
				token = e.serviceAccountToken(tc.nodeRBAC)
			}
			rc := rest.AnonymousClientConfig(e.c.Config)
			rc.BearerToken = token
			src, w := e.start(rc)

			eventuallyStatus(t, src, "the error in the status", func(st source.Status) bool {
				return strings.Contains(st.LastError, tc.wantError)
			})
			st := src.Status()
			if st.Seen || st.UpdatesSent != 0 {
				t.Errorf("seen %v with %d updates, want unseen", st.Seen, st.UpdatesSent)
			}
			if !strings.Contains(st.LastError, "API server "+e.c.Config.Host) || !strings.Contains(st.LastError, e.node) {
				t.Errorf("error %q does not name the server %s and the node %s", st.LastError, e.c.Config.Host, e.node)
			}
			select {
			case u := <-w.updates:
				t.Errorf("unexpected update with pods %q", podKeys(u))
			default:
			}
		})
	}
}

// serviceAccountToken creates a ServiceAccount (with a ClusterRole and
// binding for list/watch of nodes when nodeRBAC) and returns a token of it.
func (e *apiEnv) serviceAccountToken(nodeRBAC bool) string {
	e.t.Helper()
	ctx := bounded(e.t)
	name := uniqueName(e.t, "podsrc-api-test-sa-")
	sas := e.client.CoreV1().ServiceAccounts("default")
	if _, err := sas.Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("creating service account %s: %v", name, err)
	}
	e.t.Cleanup(func() { _ = sas.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if nodeRBAC {
		rbac := e.client.RbacV1()
		role := &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}}},
		}
		if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			e.t.Fatalf("creating cluster role %s: %v", name, err)
		}
		e.t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}) })
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: name}},
		}
		if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			e.t.Fatalf("creating cluster role binding %s: %v", name, err)
		}
		e.t.Cleanup(func() { _ = rbac.ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	expiry := int64(600)
	tr, err := sas.CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("requesting a token for %s: %v", name, err)
	}
	return tr.Status.Token
}
