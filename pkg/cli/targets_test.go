package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// TestTargetsTakeTheSameForms: pod, why and events --pod take a pod as
// POD (also as the kubelet names static pods), NAMESPACE/POD and UID, why
// a manifest path too, through the node proxy and with --agent-url (with
// or without the node); a node that is not the agent's is an error.
func TestTargetsTakeTheSameForms(t *testing.T) {
	fa := fakeagent.New("node-1")
	manifest := "/etc/kubernetes/manifests/etcd.yaml"
	fa.Sources.Items = []v1alpha1.Source{{Name: v1alpha1.SourceFile, Target: "/etc/kubernetes/manifests", Seen: true, Pods: 1}, {Name: v1alpha1.SourceAPI, Seen: true, Pods: 2}}
	fa.Pods.Items = []v1alpha1.PodInfo{
		{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-mirror", Source: v1alpha1.SourceAPI, Mirror: true},
		{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-uid", Source: v1alpha1.SourceFile, Static: true, Origin: manifest},
		{Name: "web", Namespace: "default", UID: "web-uid", Source: v1alpha1.SourceAPI},
	}
	fa.Publish(
		v1alpha1.Event{Kind: v1alpha1.EventKindConfig, Op: "ADD", Source: "api", Pods: []v1alpha1.PodRef{{Name: "web", Namespace: "default", UID: "web-uid"}}},
		v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodName: "etcd-node-1", Namespace: "kube-system", PodUID: "etcd-uid"},
	)
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": srv.URL}, nodes: []string{"node-1"}})
	t.Cleanup(api.Close)
	transports := map[string]func(cmd string, target []string) []string{
		"node proxy": func(cmd string, target []string) []string {
			return append(append([]string{cmd, "node-1"}, target...), "--kubeconfig", kubeconfig(t, api.URL))
		},
		"agent-url": func(cmd string, target []string) []string {
			return append(append([]string{cmd}, target...), "--agent-url", srv.URL)
		},
		"agent-url and its node": func(cmd string, target []string) []string {
			return append(append([]string{cmd, "node-1"}, target...), "--agent-url", srv.URL)
		},
	}
	tests := []struct {
		cmd, form string
		target    []string
		want      string
		notWant   string
	}{
		{"pod", "name as the kubelet names it", []string{"etcd"}, "etcd-uid", ""},
		{"pod", "name", []string{"etcd-node-1"}, "etcd-uid", ""},
		{"pod", "namespace/name", []string{"kube-system/etcd-node-1"}, "etcd-uid", ""},
		{"pod", "uid", []string{"web-uid"}, "default", ""},
		{"why", "name", []string{"web"}, "default/web", ""},
		{"why", "namespace/name", []string{"kube-system/etcd-node-1"}, "kube-system/etcd-node-1", ""},
		{"why", "uid", []string{"etcd-uid"}, "kube-system/etcd-node-1", ""},
		{"why", "manifest path", []string{manifest}, "kube-system/etcd-node-1", ""},
		{"events", "name", []string{"--pod=web"}, "default/web", "etcd"},
		{"events", "namespace/name", []string{"--pod=default/web"}, "default/web", "etcd"},
		{"events", "uid", []string{"--pod=etcd-uid"}, "ContainerStarted", "default/web"},
	}
	for transport, args := range transports {
		for _, tc := range tests {
			t.Run(transport+"/"+tc.cmd+"/"+tc.form, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				stdout, stderr, done := startExit(ctx, args(tc.cmd, tc.target)...)
				code := <-done
				if code == 1 {
					t.Fatalf("exit 1; stderr:\n%s", stderr)
				}
				var notWant []string
				if tc.notWant != "" {
					notWant = append(notWant, tc.notWant)
				}
				checkOutput(t, stdout.String(), []string{tc.want}, notWant)
			})
		}
	}
	t.Run("a node that is not the agent's", func(t *testing.T) {
		for _, cmd := range [][]string{{"sources", "node-2"}, {"pod", "node-2", "web"}, {"why", "node-2", "web"}, {"events", "node-2"}} {
			_, stderr, done := startExit(context.Background(), append(cmd, "--agent-url", srv.URL)...)
			if code := <-done; code != 1 || !strings.Contains(stderr.String(), `runs on node "node-1", not "node-2"`) {
				t.Errorf("%v: exit %d, stderr %q; want 1 and the agent's node", cmd, code, stderr)
			}
		}
	})
}
