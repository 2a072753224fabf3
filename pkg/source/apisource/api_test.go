package apisource

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podsrc/podsrc/internal/sourcetest"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/source"
)

// fakeHost and testNode are the API server and the node of the unit tests.
const (
	fakeHost = "https://api.test:6443"
	testNode = "Node-1"
)

func apiPod(ns, name, node, rv string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "-" + name), ResourceVersion: rv},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Image: "img"}}},
	}
}

func apiNode(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// fakeAPI serves the API source's lists and watches from a fake clientset,
// which, as client-go's fakes do, refuses watch-list.
type fakeAPI struct{ *fake.Clientset }

func (f fakeAPI) List(ctx context.Context, resource string, opts metav1.ListOptions) (runtime.Object, error) {
	switch resource {
	case "pods":
		return f.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
	case "nodes":
		return f.CoreV1().Nodes().List(ctx, opts)
	}
	return nil, fmt.Errorf("the fake API serves no %s", resource)
}

func (f fakeAPI) Watch(ctx context.Context, resource string, opts metav1.ListOptions) (watch.Interface, error) {
	switch resource {
	case "pods":
		return f.CoreV1().Pods(metav1.NamespaceAll).Watch(ctx, opts)
	case "nodes":
		return f.CoreV1().Nodes().Watch(ctx, opts)
	}
	return nil, fmt.Errorf("the fake API serves no %s", resource)
}

// startAPI runs an API source over a fake clientset holding objs.
func startAPI(t *testing.T, client *fake.Clientset) (*APISource, *sourcetest.Collector) {
	t.Helper()
	c := sourcetest.NewCollector(t)
	src, err := NewAPI(APIOptions{
		Client: fakeAPI{client}, Host: fakeHost, NodeName: testNode, Updates: c.Updates,
		NodeSyncPeriod: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	return src, c
}

// fingerprints returns the update's fingerprints keyed by pod name.
func fingerprints(t *testing.T, u merge.PodUpdate) map[string]string {
	t.Helper()
	return sourcetest.ByName(t, u, "fingerprints", u.Fingerprints)
}

func TestAPISourceInitialList(t *testing.T) {
	cases := []struct {
		name      string
		objs      []runtime.Object
		wantPods  []string
		wantFP    map[string]string
		wantError string
	}{
		{
			name:     "empty node sends an empty SET",
			objs:     []runtime.Object{apiNode(testNode)},
			wantPods: []string{},
			wantFP:   map[string]string{},
		},
		{
			name: "pods across namespaces, sorted, with their resourceVersions",
			objs: []runtime.Object{apiNode(testNode),
				apiPod("kube-system", "b", testNode, "12"), apiPod("default", "z", testNode, "7"), apiPod("default", "a", testNode, "9")},
			wantPods: []string{"default/a", "default/z", "kube-system/b"},
			wantFP:   map[string]string{"a": "9", "z": "7", "b": "12"},
		},
		{
			name:      "missing node: pods are sent anyway, as by the kubelet",
			objs:      []runtime.Object{apiPod("default", "a", testNode, "3")},
			wantPods:  []string{"default/a"},
			wantFP:    map[string]string{"a": "3"},
			wantError: "node " + testNode + " not found: is --node-name right?",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, c := startAPI(t, fake.NewClientset(tc.objs...))
			u := c.Next()
			if u.Op != merge.Set || u.Source != v1alpha1.SourceAPI || u.Pods == nil {
				t.Fatalf("got op %v source %q pods %v, want a non-nil SET from %q", u.Op, u.Source, u.Pods, v1alpha1.SourceAPI)
			}
			var got []string
			for _, p := range u.Pods {
				got = append(got, p.Namespace+"/"+p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.wantPods, ",") {
				t.Errorf("pods %q, want %q (in this order)", got, tc.wantPods)
			}
			if fp := fingerprints(t, u); !reflect.DeepEqual(fp, tc.wantFP) {
				t.Errorf("fingerprints %v, want %v", fp, tc.wantFP)
			}
			sourcetest.Eventually(t, "status after the first SET", func() bool {
				st := src.Status()
				return st.Seen && st.UpdatesSent == 1 && st.Checks == 1 && len(st.Pods) == len(tc.wantPods)
			})
			st := src.Status()
			if st.Source != v1alpha1.SourceAPI || st.Target != fakeHost || st.LastUpdate.IsZero() {
				t.Errorf("status source %q target %q last update %v", st.Source, st.Target, st.LastUpdate)
			}
			if tc.wantError == "" && st.LastError != "" {
				t.Errorf("unexpected error %q", st.LastError)
			}
			if tc.wantError != "" && !strings.Contains(st.LastError, tc.wantError) {
				t.Errorf("error %q, want one containing %q", st.LastError, tc.wantError)
			}
		})
	}
}

func TestAPISourceChanges(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(apiNode(testNode), apiPod("default", "a", testNode, "1"))
	watching := make(chan struct{})
	client.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		select {
		case <-watching:
		default:
			close(watching)
		}
		return false, nil, nil
	})
	src, c := startAPI(t, client)
	first := c.Until("a")
	// The merge annotates what it keeps; nothing of that may reach the
	// source's store, whose own objects the SET carries.
	cfg := merge.New(merge.Options{})
	cfg.Channel(ctx, v1alpha1.SourceAPI) <- first
	if n := len((<-cfg.Updates()).Pods); n != 1 {
		t.Fatalf("the merge notified %d pods of the first SET, want 1", n)
	}
	select {
	case <-watching:
	case <-time.After(sourcetest.WaitLimit):
		t.Fatal("the source did not start watching pods")
	}

	pods := client.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, apiPod("default", "b", testNode, "2"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	u := c.Until("a", "b")
	for _, p := range u.Pods {
		if len(p.Annotations) != 0 {
			t.Errorf("pod %s carries the merge's change %v", p.Name, p.Annotations)
		}
	}
	updated := apiPod("default", "a", testNode, "3")
	updated.Labels = map[string]string{"v": "2"}
	if _, err := pods.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	u = c.Next()
	if fp := fingerprints(t, u); fp["a"] != "3" || fp["b"] != "2" {
		t.Errorf("after update: fingerprints %v, want a=3 b=2", fp)
	}
	if err := pods.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Until("b")
	sourcetest.Eventually(t, "status after four SETs", func() bool {
		st := src.Status()
		return st.UpdatesSent == 4 && len(st.Pods) == 1 && st.Pods[0].Name == "b" && st.Pods[0].Origin == fakeHost
	})
}

func TestAPISourceForbidden(t *testing.T) {
	cases := []struct {
		name      string
		resource  string
		wantError string
	}{
		{
			name:      "nodes: never starts watching pods",
			resource:  "nodes",
			wantError: "podsrc needs list/watch nodes at cluster scope (to wait for node " + testNode + " as the kubelet does); the ClusterRole podsrc-agent that kubectl podsrc deploy creates grants it",
		},
		{
			name:      "pods",
			resource:  "pods",
			wantError: "podsrc needs list/watch pods at cluster scope; the ClusterRole podsrc-agent that kubectl podsrc deploy creates grants it",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(apiNode(testNode))
			client.PrependReactor("list", tc.resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: tc.resource}, "", errors.New("RBAC: access denied"))
			})
			src, c := startAPI(t, client)
			sourcetest.Eventually(t, "the forbidden error in the status", func() bool {
				return strings.Contains(src.Status().LastError, tc.wantError)
			})
			if st := src.Status(); st.Seen || st.UpdatesSent != 0 {
				t.Errorf("seen %v after %d updates, want unseen", st.Seen, st.UpdatesSent)
			}
			c.None()
		})
	}
}

func TestAPISourceStopsWhileSending(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	updates := make(chan merge.PodUpdate) // never read
	src, err := NewAPI(APIOptions{Client: fakeAPI{fake.NewClientset(apiNode(testNode))}, Host: fakeHost, NodeName: testNode,
		Updates: updates, NodeSyncPeriod: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); src.Run(ctx) }()
	sourcetest.Eventually(t, "the first list", func() bool { return src.Status().Checks == 1 })
	cancel()
	select {
	case <-done:
	case <-time.After(sourcetest.WaitLimit):
		t.Fatal("Run blocked on a send after its context ended")
	}
	if src.Status().Seen {
		t.Error("seen without a delivered SET")
	}
}

func TestNewAPIErrors(t *testing.T) {
	updates := make(chan merge.PodUpdate)
	cases := []struct {
		name string
		opts APIOptions
		want string
	}{
		{name: "no node", opts: APIOptions{Client: fakeAPI{fake.NewClientset()}, Updates: updates}, want: "no node name"},
		{name: "no channel", opts: APIOptions{Client: fakeAPI{fake.NewClientset()}, NodeName: "n"}, want: "no updates channel"},
		{name: "no client", opts: APIOptions{NodeName: "n", Updates: updates}, want: "no client configuration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAPI(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestExplainAPIError(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: fakeHost + "/api/v1/pods", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	cases := []struct {
		name     string
		err      error
		resource string
		want     []string
	}{
		{
			name: "forbidden pods", resource: "pods",
			err:  apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("denied")),
			want: []string{"API server " + fakeHost, "list of pods for node " + testNode, "list/watch pods at cluster scope; the ClusterRole podsrc-agent that kubectl podsrc deploy creates grants it", "denied"},
		},
		{
			name: "forbidden nodes", resource: "nodes",
			err:  apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("denied")),
			want: []string{"list/watch nodes at cluster scope", "podsrc-agent"},
		},
		{
			name: "unauthorized", resource: "pods",
			err:  apierrors.NewUnauthorized("Unauthorized"),
			want: []string{"rejects podsrc's credentials", "--kubeconfig"},
		},
		{
			name: "connection refused", resource: "pods", err: refused,
			want: []string{"API server " + fakeHost + " unreachable", "connection refused"},
		},
		{
			name: "unknown authority", resource: "pods",
			err:  &url.Error{Op: "Get", URL: fakeHost, Err: x509.UnknownAuthorityError{}},
			want: []string{"TLS verification failed", "CA in --kubeconfig"},
		},
		{
			name: "anything else", resource: "pods",
			err:  apierrors.NewInternalError(errors.New("etcd is sad")),
			want: []string{"API server " + fakeHost + ": list of pods for node " + testNode + " failed", "etcd is sad"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := explainAPIError(tc.err, tc.resource, "list", fakeHost, testNode)
			if !errors.Is(got, tc.err) {
				t.Errorf("%v does not wrap %v", got, tc.err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

func TestOptionsFor(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: secret}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, fakeHost)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		cfg         source.Config
		noInCluster bool
		wantOff     bool
		wantErr     string
	}{
		{name: "off", cfg: source.Config{}, wantOff: true},
		{name: "kubeconfig", cfg: source.Config{EnableAPISource: true, Kubeconfig: kubeconfig}},
		{name: "missing kubeconfig", cfg: source.Config{EnableAPISource: true, Kubeconfig: filepath.Join(dir, "nope")},
			wantErr: "loading --kubeconfig"},
		{name: "not in a cluster", cfg: source.Config{EnableAPISource: true}, noInCluster: true,
			wantErr: "give --kubeconfig, or --api-source=false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.noInCluster {
				t.Setenv("KUBERNETES_SERVICE_HOST", "")
				t.Setenv("KUBERNETES_SERVICE_PORT", "")
			}
			opts, on, err := OptionsFor(tc.cfg, nodeenv.Env{NodeName: "n"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if on == tc.wantOff {
				t.Fatalf("on = %v, want %v", on, !tc.wantOff)
			}
			if !on {
				return
			}
			opts.Updates = make(chan merge.PodUpdate)
			src, err := NewAPI(opts)
			if err != nil {
				t.Fatal(err)
			}
			if st := src.Status(); st.Source != v1alpha1.SourceAPI || st.Target != fakeHost {
				t.Errorf("status source %q target %q, want %q %q", st.Source, st.Target, v1alpha1.SourceAPI, fakeHost)
			}
		})
	}
}

func TestAPISourceUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "https://" + l.Addr().String()
	l.Close() // nothing listens there any more
	c := sourcetest.NewCollector(t)
	src, err := NewAPI(APIOptions{Config: &rest.Config{Host: host}, NodeName: testNode, Updates: c.Updates})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	sourcetest.Eventually(t, "the unreachable server in the status", func() bool {
		// With client-go's watch-list the first request is a watch.
		e := src.Status().LastError
		return strings.Contains(e, "API server "+host+" unreachable (") && strings.Contains(e, " of nodes for node "+testNode+")")
	})
	if st := src.Status(); st.Seen || st.Target != host {
		t.Errorf("seen %v target %q, want unseen with target %q", st.Seen, st.Target, host)
	}
	c.None()
}

// watchListClient hides the fake clientset's refusal of watch-list, so that
// the reflector tries it.
type watchListClient struct{ APIClient }

func TestAPISourceWatchListRefused(t *testing.T) {
	client := fake.NewClientset(apiNode(testNode), apiPod("default", "a", testNode, "4"))
	client.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if wa, ok := a.(k8stesting.WatchActionImpl); ok && wa.ListOptions.SendInitialEvents != nil {
			return true, nil, apierrors.NewBadRequest("sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
		}
		return false, nil, nil
	})
	c := sourcetest.NewCollector(t)
	src, err := NewAPI(APIOptions{Client: watchListClient{fakeAPI{client}}, Host: fakeHost, NodeName: testNode, Updates: c.Updates,
		NodeSyncPeriod: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Run(t, src.Run)
	c.Until("a")
	if st := src.Status(); st.LastError != "" {
		t.Errorf("the reflector's fallback to a list left the error %q", st.LastError)
	}
}

// TestAPISourceReportsTheNodesKubelet checks that the status carries the
// kubelet version of the node's Node object, and follows its changes (a
// kubelet upgraded in place).
func TestAPISourceReportsTheNodesKubelet(t *testing.T) {
	node := apiNode(testNode)
	node.Status.NodeInfo.KubeletVersion = "v1.34.4"
	client := fake.NewClientset(node)
	src, c := startAPI(t, client)
	c.Next()
	if got := src.Status().NodeKubeletVersion; got != "v1.34.4" {
		t.Fatalf("node kubelet %q after the first list, want v1.34.4", got)
	}
	node = node.DeepCopy()
	node.Status.NodeInfo.KubeletVersion = "v1.35.4"
	if _, err := client.CoreV1().Nodes().UpdateStatus(t.Context(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	followed := func(context.Context) (bool, error) { return src.Status().NodeKubeletVersion == "v1.35.4", nil }
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, followed); err != nil {
		t.Fatalf("node kubelet %q after the Node's update, want v1.35.4: %v", src.Status().NodeKubeletVersion, err)
	}
}
