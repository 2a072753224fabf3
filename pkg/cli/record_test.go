package cli

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive"
)

// TestRecordThenFrom records node-1 from its fake agent, through a fake
// API server, and checks that every command that reads the archive with
// --from prints what it prints live, byte for byte, with no cluster.
func TestRecordThenFrom(t *testing.T) {
	fa := examplesAgent()
	for i, p := range fa.Pods.Items {
		if p.Name == "kube-apiserver-node-1" {
			fa.Pods.Items[i].Pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-apiserver", Image: "registry.k8s.io/kube-apiserver:v1.36.3"}}}}
		}
	}
	agent := httptest.NewServer(fa)
	t.Cleanup(agent.Close)
	api := httptest.NewServer(&fakeAPIServer{agents: map[string]string{"node-1": agent.URL}, nodes: []string{"node-1"}, kubelet: "v1.36.3"})
	t.Cleanup(api.Close)
	kc := kubeconfig(t, api.URL)
	file := filepath.Join(t.TempDir(), "node-1.tar.gz")
	out, errOut, err := run(t, context.Background(), "--kubeconfig", kc, "record", "node-1", "-o", file)
	if err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}
	checkOutput(t, out, []string{"recorded node node-1 to " + file, "node.json", "events 1 to 1306: 1306 events, 0 gaps", "left out: the text of the static pod manifests"}, nil)
	a, err := archive.ReadFile(file, 0)
	if err != nil {
		t.Fatalf("reading the archive: %v", err)
	}
	if a.Node == nil || a.Node.Name != "node-1" {
		t.Errorf("the archive's node = %v, want node-1's Node", a.Node)
	}
	if a.KubeletConfig == nil || a.KubeletConfig.Config == nil || a.KubeletConfig.Config.StaticPodPath != "/etc/kubernetes/manifests" {
		t.Errorf("the archive's kubelet configuration = %+v, want the agent's", a.KubeletConfig)
	}
	if len(a.PodDetails.Items) != len(a.Pods.Items) || !slices.ContainsFunc(a.PodDetails.Items, func(p v1alpha1.PodInfo) bool {
		return p.Pod != nil && p.Pod.Spec.Containers[0].Name == "kube-apiserver"
	}) {
		t.Errorf("the archive's pod details %+v, want one for each pod, with the apiserver's pod", a.PodDetails.Items)
	}

	commands := [][]string{
		{"sources"}, {"sources", "-o", "wide"}, {"sources", "-o", "json"},
		{"pods"}, {"pods", "-o", "wide"}, {"pods", "-n", "web", "-o", "yaml"}, {"pods", "-l", "app=web"},
		{"pod", "kube-system/kube-apiserver-node-1"}, {"pod", "kube-system/kube-apiserver-node-1", "-o", "yaml"},
		{"pleg"},
		{"events"}, {"events", "--since=1290", "-o", "json"}, {"events", "--tail=5", "--kind=pleg"}, {"events", "--until=20", "-o", "wide"},
		{"version"},
	}
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			live, errOut, err := run(t, context.Background(), append([]string{"--kubeconfig", kc, args[0], "node-1"}, args[1:]...)...)
			if err != nil {
				t.Fatalf("live: %v, stderr:\n%s", err, errOut)
			}
			// No cluster at all.
			t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
			offline, errOut, err := run(t, context.Background(), append(args, "--from", file)...)
			if err != nil {
				t.Fatalf("--from: %v, stderr:\n%s", err, errOut)
			}
			if args[0] == "version" {
				// The node's kubelet version is the API server's, which
				// the archive's agent did not know.
				live = strings.Replace(live, "  Kubelet Version: v1.36.3\n", "", 1)
			}
			if diff := cmp.Diff(live, offline); diff != "" {
				t.Errorf("--from prints otherwise than live (-live +offline):\n%s", diff)
			}
		})
	}
}

// TestRecordSince records the events after 1300 only: the events that
// --from prints from then on are those printed live, and those before are
// a gap.
func TestRecordSince(t *testing.T) {
	fa := examplesAgent()
	agent := httptest.NewServer(fa)
	t.Cleanup(agent.Close)
	file := filepath.Join(t.TempDir(), "node-1.tar.gz")
	out, errOut, err := run(t, context.Background(), "--agent-url", agent.URL, "record", "--since=1300", "-o", file)
	if err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}
	checkOutput(t, out, []string{"events 1301 to 1306: 6 events, 0 gaps", "left out: node.json: no cluster configuration"}, nil)
	for _, args := range [][]string{{"events", "--since=1300"}, {"events", "--since=1302", "-o", "json"}} {
		live, errOut, err := run(t, context.Background(), append(args, "--agent-url", agent.URL)...)
		if err != nil {
			t.Fatalf("live: %v, stderr:\n%s", err, errOut)
		}
		offline, errOut, err := run(t, context.Background(), append(args, "--from", file)...)
		if err != nil {
			t.Fatalf("--from: %v, stderr:\n%s", err, errOut)
		}
		if diff := cmp.Diff(live, offline); diff != "" {
			t.Errorf("%v: --from prints otherwise than live (-live +offline):\n%s", args, diff)
		}
	}
	offline, _, err := run(t, context.Background(), "events", "--from", file, "-o", "json")
	if err != nil || !strings.Contains(offline, `"name": "gap-1-1300"`) {
		t.Errorf("events --from without --since = %v:\n%s\nwant a gap for events 1 to 1300", err, offline)
	}
}

// TestWhyFrom: why reads an archive as it reads the agent, with no
// cluster: its report is the one the agent gives without the API server.
func TestWhyFrom(t *testing.T) {
	fa := examplesAgent()
	agent := httptest.NewServer(fa)
	t.Cleanup(agent.Close)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	file := filepath.Join(t.TempDir(), "node-1.tar.gz")
	if _, errOut, err := run(t, context.Background(), "--agent-url", agent.URL, "record", "node-1", "-o", file); err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}
	for _, args := range [][]string{{"why", "kube-system/etcd-node-1", "-o", "yaml"}, {"why", "--all"}} {
		live, _, liveErr := run(t, context.Background(), append(args, "--agent-url", agent.URL)...)
		offline, errOut, err := run(t, context.Background(), append(args, "--from", file)...)
		if fmt.Sprint(err) != fmt.Sprint(liveErr) {
			t.Fatalf("%v --from: %v, stderr:\n%s\nwant %v as live", args, err, errOut, liveErr)
		}
		// Live, no cluster configuration was given; offline, the archive
		// was read.
		live = strings.ReplaceAll(live, "no cluster configuration (--kubeconfig, --context or --server) was given", "read from the archive "+file+": the API server was not asked")
		if diff := cmp.Diff(live, offline); diff != "" {
			t.Errorf("%v: --from prints otherwise than live (-live +offline):\n%s", args, diff)
		}
	}
}

// TestRecordMaxSize: what does not fit in --max-size is the oldest events,
// which --from then prints as a gap, the newest as live.
func TestRecordMaxSize(t *testing.T) {
	fa := examplesAgent()
	agent := httptest.NewServer(fa)
	t.Cleanup(agent.Close)
	file := filepath.Join(t.TempDir(), "node-1.tar.gz")
	out, errOut, err := run(t, context.Background(), "--agent-url", agent.URL, "record", "--max-size=40Ki", "-o", file)
	if err != nil {
		t.Fatalf("record: %v, stderr:\n%s", err, errOut)
	}
	a, err := archive.ReadFile(file, 0)
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, m := range a.Manifest.Members {
		size += m.Size
	}
	first := a.Events[0]
	if size > 40<<10 || first.Type != v1alpha1.MessageGap || first.From != 1 || a.Manifest.Events.Events < 10 {
		t.Fatalf("members of %d bytes, events from %+v, %d events; want at most 40Ki, a gap from 1, then the newest", size, first, a.Manifest.Events.Events)
	}
	checkOutput(t, out, []string{fmt.Sprintf("left out: events 1 to %d: the archive's size bound", first.To)}, nil)
	since := fmt.Sprintf("--since=%d", first.To)
	live, _, err := run(t, context.Background(), "events", since, "--agent-url", agent.URL)
	if err != nil {
		t.Fatal(err)
	}
	offline, errOut, err := run(t, context.Background(), "events", since, "--from", file)
	if err != nil {
		t.Fatalf("--from: %v, stderr:\n%s", err, errOut)
	}
	if diff := cmp.Diff(live, offline); diff != "" {
		t.Errorf("the newest events: --from prints otherwise than live (-live +offline):\n%s", diff)
	}
}

// TestRecordUnwritable: an -o that cannot be written fails the command
// with an error that names the file.
func TestRecordUnwritable(t *testing.T) {
	_, u := newAgent(t, "node-1")
	file := filepath.Join(t.TempDir(), "missing", "node-1.tar.gz")
	_, errOut, err := run(t, context.Background(), "--agent-url", u, "record", "-o", file)
	if err == nil || !strings.Contains(err.Error(), "writing the archive "+file+": ") {
		t.Errorf("record = %v, stderr:\n%s\nwant an error writing the archive %s", err, errOut, file)
	}
}
