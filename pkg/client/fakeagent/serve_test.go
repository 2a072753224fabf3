package fakeagent

import (
	"bytes"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1/querytest"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/serve/servetest"
)

// cannedState is a serve.State of fixed answers, written apart from the
// fake's, as the agent's answers would be for the same state.
type cannedState struct {
	sources v1alpha1.SourceList
	pods    v1alpha1.PodList
	pleg    v1alpha1.PLEGStatus
	version v1alpha1.Version
}

func (s cannedState) Sources() v1alpha1.SourceList { return s.sources }
func (s cannedState) PLEG() v1alpha1.PLEGStatus    { return s.pleg }
func (s cannedState) Version() v1alpha1.Version    { return s.version }
func (s cannedState) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	head := s.pods
	head.Items = nil
	return head, func(yield func(v1alpha1.PodInfo) error) error {
		for _, p := range s.pods.Items {
			if !q.Match(p) {
				continue
			}
			if err := yield(p); err != nil {
				return err
			}
		}
		return nil
	}
}
func (s cannedState) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	for _, p := range s.pods.Items {
		if p.UID == uid {
			p.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
			return p, nil
		}
	}
	return v1alpha1.PodInfo{}, errors.New("no pod with UID " + strconv.Quote(string(uid)) + " in any source or in the runtime of node " + s.pods.NodeName)
}
func (s cannedState) Snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(func(v1alpha1.PodInfo) error) error) {
	head, items := s.Pods(q)
	return 0, head, items
}
func (cannedState) KubeletConfig() v1alpha1.KubeletConfig { return v1alpha1.KubeletConfig{} }
func (cannedState) Live() error                           { return nil }
func (cannedState) Ready() error                          { return nil }

// TestAnswersAreTheAgents answers as serve.API does over the same state,
// byte for byte and header for header: the client's tests read what the
// agent writes.
func TestAnswersAreTheAgents(t *testing.T) {
	a := New("node-1")
	a.Pods.Items = append(querytest.Pods(), v1alpha1.PodInfo{Namespace: "default", Name: "slashed", UID: "a/b//../c", Source: v1alpha1.SourceFile})
	a.Sources.Items = []v1alpha1.Source{{Name: v1alpha1.SourceFile, Target: "/etc/kubernetes/manifests", Seen: true, Pods: 1}}
	fake := httptest.NewServer(a)
	t.Cleanup(fake.Close)

	metrics := serve.NewMetrics()
	stopping := make(chan struct{})
	api := &serve.API{
		State:     cannedState{sources: a.Sources, pods: a.Pods, pleg: a.PLEG, version: a.Version},
		Ring:      eventring.New(0, nil),
		Heartbeat: time.Second,
		Stopping:  stopping,
		Streams:   serve.DefaultLimits().StreamSlots(metrics.Refused),
		Snapshots: serve.DefaultLimits().SnapshotSlots(metrics.Refused),
		Metrics:   metrics,
	}
	agent := httptest.NewServer(api.Handler())
	t.Cleanup(func() { close(stopping); agent.Close() })

	for _, tt := range []struct {
		name         string
		code         int
		method, path string
	}{
		{name: "no such path", code: http.StatusNotFound, method: http.MethodGet, path: "/api/v1alpha1/nodes"},
		{name: "another version", code: http.StatusNotFound, method: http.MethodGet, path: "/api/v9/pods"},
		{name: "not GET", code: http.StatusMethodNotAllowed, method: http.MethodPost, path: v1alpha1.PodsPath},
		{name: "version", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.VersionPath},
		{name: "sources", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.SourcesPath},
		{name: "pleg", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.PLEGPath},
		{name: "pods", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.PodsPath},
		{name: "pods of a namespace", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.PodsPath + "?namespace=kube-system"},
		{name: "no pods", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.PodsPath + "?namespace=none"},
		{name: "bad pod query", code: http.StatusBadRequest, method: http.MethodGet, path: v1alpha1.PodsPath + "?labelSelector=%3D%3D"},
		{name: "a pod", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.PodPath(url.PathEscape("a/b//../c"))},
		{name: "no such pod", code: http.StatusNotFound, method: http.MethodGet, path: v1alpha1.PodPath("nope")},
		{name: "HEAD of pods", code: http.StatusOK, method: http.MethodHead, path: v1alpha1.PodsPath},
		{name: "probe", code: http.StatusOK, method: http.MethodGet, path: v1alpha1.ReadyzPath},
		{name: "bad stream query", code: http.StatusBadRequest, method: http.MethodGet, path: v1alpha1.EventsPath + "?since=x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, want := servetest.Do(t, tt.method, fake.URL+tt.path), servetest.Do(t, tt.method, agent.URL+tt.path)
			if want.Code != tt.code {
				t.Fatalf("the agent answered %d %s, want %d", want.Code, want.Body, tt.code)
			}
			if got.Code != want.Code || !bytes.Equal(got.Body, want.Body) {
				t.Errorf("the fake answered %d\n%s\nthe agent %d\n%s", got.Code, got.Body, want.Code, want.Body)
			}
			keys := slices.Concat(slices.Collect(maps.Keys(want.Header)), slices.Collect(maps.Keys(got.Header)))
			for _, k := range slices.Compact(slices.Sorted(slices.Values(keys))) {
				if !slices.Equal(got.Header[k], want.Header[k]) {
					t.Errorf("header %s: the fake's is %q, the agent's %q", k, got.Header[k], want.Header[k])
				}
			}
		})
	}
}
