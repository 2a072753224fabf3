package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
	"github.com/podsrc/podsrc/pkg/why"
)

// whyNow is the clock of the why tests.
var whyNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const (
	whyNode = "node-1"
	whyDir  = "/etc/kubernetes/manifests"
)

// whyAgent is a node with a healthy static pod (etcd), a crash-looping
// one (broken), one whose mirror pod is of another version (loop), a
// rejected manifest (bad.yaml), a manifest etcd.yaml hides (etcd-old.yaml),
// a static pod seen 7s ago whose mirror pod is not made yet (fresh) and a
// healthy API pod (web).
func whyAgent(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(whyFakeAgent())
	t.Cleanup(srv.Close)
	return srv.URL
}

// whyFakeAgent is whyAgent's fake agent, not yet served.
func whyFakeAgent() *fakeagent.Agent {
	fa := fakeagent.New(whyNode)
	last := metav1.NewTime(whyNow.Add(-time.Minute))
	fa.Sources.Items = []v1alpha1.Source{
		{Name: v1alpha1.SourceAPI, Target: "https://10.0.0.1:6443", Seen: true, LastUpdate: &last, Pods: 3},
		{Name: v1alpha1.SourceFile, Target: whyDir, Seen: true, LastUpdate: &last, Pods: 2,
			RejectedFiles: []v1alpha1.RejectedFile{{Path: whyDir + "/bad.yaml", Since: last,
				Error: "error converting YAML to JSON: yaml: line 7: mapping values are not allowed in this context\x1b[2J"}},
			ShadowedFiles: []v1alpha1.ShadowedFile{{Path: whyDir + "/etcd-old.yaml", By: whyDir + "/etcd.yaml", Pod: "kube-system/etcd-node-1"}}},
	}
	rt := func(sandbox string, cs ...v1alpha1.RuntimeContainer) *v1alpha1.RuntimePod {
		return &v1alpha1.RuntimePod{SandboxID: sandbox, SandboxState: "ready", IPs: []string{"10.0.0.5"}, Containers: cs}
	}
	spec := func(ns, name string, containers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{NodeName: whyNode, RestartPolicy: corev1.RestartPolicyAlways}}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "registry.example/" + c + ":1"})
		}
		return p
	}
	fa.Pods.Items = []v1alpha1.PodInfo{
		// A mirror pod listed before its static pod, and of another
		// version of it: the kubelet's recreate loop.
		{Name: "loop-node-1", Namespace: "kube-system", UID: "loop-mirror", Source: v1alpha1.SourceAPI, Mirror: true, ConfigMirror: "loop-old"},
		{Name: "loop-node-1", Namespace: "kube-system", UID: "loop-uid", Source: v1alpha1.SourceFile, Static: true, ConfigHash: "loop-uid",
			Origin: whyDir + "/loop.yaml", Pod: spec("kube-system", "loop-node-1", "app"),
			Runtime: rt("d1b2c3d4e5f60718293a", v1alpha1.RuntimeContainer{ID: "containerd://l1", Name: "app", State: "running"})},
		{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-uid", Source: v1alpha1.SourceFile, Static: true, ConfigHash: "etcd-uid",
			Origin: whyDir + "/etcd.yaml", FirstSeen: "2026-11-22T10:00:00Z", Pod: spec("kube-system", "etcd-node-1", "etcd"),
			Runtime: rt("a1b2c3d4e5f60718293a", v1alpha1.RuntimeContainer{ID: "containerd://e1", Name: "etcd", State: "running", RestartCount: 0})},
		{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-mirror", Source: v1alpha1.SourceAPI, Mirror: true, ConfigMirror: "etcd-uid"},
		{Name: "broken-node-1", Namespace: "kube-system", UID: "broken-uid", Source: v1alpha1.SourceFile, Static: true, ConfigHash: "broken-uid",
			Origin: whyDir + "/broken.yaml", Pod: spec("kube-system", "broken-node-1", "app"),
			Runtime: rt("b1b2c3d4e5f60718293a", v1alpha1.RuntimeContainer{ID: "containerd://b1", Name: "app", State: "exited", ExitCode: 3, Reason: "Error", RestartCount: 4})},
		{Name: "broken-node-1", Namespace: "kube-system", UID: "broken-mirror", Source: v1alpha1.SourceAPI, Mirror: true, ConfigMirror: "broken-uid"},
		{Name: "fresh-node-1", Namespace: "kube-system", UID: "fresh-uid", Source: v1alpha1.SourceFile, Static: true, ConfigHash: "fresh-uid",
			Origin: whyDir + "/fresh.yaml", FirstSeen: whyNow.Add(-7 * time.Second).Format(time.RFC3339Nano), Pod: spec("kube-system", "fresh-node-1", "app"),
			Runtime: rt("f1b2c3d4e5f60718293a", v1alpha1.RuntimeContainer{ID: "containerd://f1", Name: "app", State: "running"})},
		{Name: "web", Namespace: "default", UID: "web-uid", Source: v1alpha1.SourceAPI, Pod: spec("default", "web", "app"),
			Runtime: rt("c1b2c3d4e5f60718293a", v1alpha1.RuntimeContainer{ID: "containerd://w1", Name: "app", State: "running"})},
	}
	// The kubelet admitted every configured pod; mirror pods were not
	// taken to admission.
	for i := range fa.Pods.Items {
		p := &fa.Pods.Items[i]
		p.Admission = &v1alpha1.Admission{Admitted: true}
		if p.Mirror {
			p.Admission = &v1alpha1.Admission{Skipped: "mirror pod: not taken to admission"}
		}
	}
	code := 3
	for _, d := range []time.Duration{90 * time.Second, 70 * time.Second, 30 * time.Second} {
		fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", PodUID: "broken-uid", PodName: "broken-node-1",
			Namespace: "kube-system", ContainerName: "app", Data: "containerd://b1", ExitCode: &code, Time: metav1.NewMicroTime(whyNow.Add(-d))})
	}
	return fa
}

// whyCluster is the API server's side: the node, namespace kube-system, the
// mirror pods (none yet of fresh), web and the Events of the crash loop.
func whyCluster() *fake.Clientset {
	mirror := func(name, hash string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name, UID: "m-" + "uid",
			Annotations: map[string]string{"kubernetes.io/config.mirror": hash}}, Spec: corev1.PodSpec{NodeName: whyNode}}
	}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid"}, Spec: corev1.PodSpec{NodeName: whyNode}}
	backoff := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "broken.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "kube-system", Name: "broken-node-1"},
		Reason:         "BackOff", Message: "Back-off restarting failed container app in pod broken-node-1", Type: corev1.EventTypeWarning,
		Count: 7, LastTimestamp: metav1.NewTime(whyNow.Add(-20 * time.Second))}
	return fake.NewClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: whyNode}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}},
		mirror("etcd-node-1", "etcd-uid"), mirror("broken-node-1", "broken-uid"), mirror("loop-node-1", "loop-old"), web, backoff)
}

// runWhy runs kubectl podsrc with the cluster cs; it returns stdout,
// stderr and the exit status.
func runWhy(t *testing.T, cs kubernetes.Interface, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	common.Now = func() time.Time { return whyNow }
	common.clientset = cs
	code := execute(context.Background(), common, args)
	return out.String(), errOut.String(), code
}

func TestWhyGolden(t *testing.T) {
	u := whyAgent(t)
	forbidden := func() kubernetes.Interface {
		cs := whyCluster()
		cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			name := a.(k8stesting.GetAction).GetName()
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, name, errors.New(`User "dev" cannot get resource "pods"`))
		})
		return cs
	}
	tests := []struct {
		name    string
		cluster func() kubernetes.Interface
		args    []string
		status  int
	}{
		{name: "healthy-static", args: []string{whyDir + "/etcd.yaml"}, status: 0},
		{name: "healthy-static-json", args: []string{whyDir + "/etcd.yaml", "-o", "json"}, status: 0},
		{name: "shadowed", args: []string{whyDir + "/etcd-old.yaml"}, status: ExitFailing},
		{name: "healthy-api", args: []string{"default/web"}, status: 0},
		{name: "decode", args: []string{"bad"}, status: ExitFailing},
		{name: "decode-json", args: []string{whyDir + "/bad.yaml", "-o", "json"}, status: ExitFailing},
		{name: "crashloop-wide", args: []string{"broken", "-o", "wide"}, status: ExitFailing},
		{name: "mirror-pending", args: []string{"fresh"}, status: ExitUnknown},
		{name: "mirror-pending-json", args: []string{"fresh", "-o", "json"}, status: ExitUnknown},
		{name: "forbidden", cluster: forbidden, args: []string{"shop/cart"}, status: ExitUnknown},
		{name: "forbidden-json", cluster: forbidden, args: []string{"shop/cart", "-o", "json"}, status: ExitUnknown},
		{name: "all", args: []string{"--all"}, status: ExitFailing},
		{name: "all-json", args: []string{"--all", "-o", "json"}, status: ExitFailing},
		{name: "stage-jsonpath", args: []string{"broken", "-o", "jsonpath={.stage} {.verdict}"}, status: ExitFailing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cs kubernetes.Interface = whyCluster()
			if tc.cluster != nil {
				cs = tc.cluster()
			}
			args := append([]string{"why", whyNode}, tc.args...)
			out, errOut, status := runWhy(t, cs, append(args, "--agent-url", u, "--color", "always")...)
			if status != tc.status {
				t.Errorf("exit status %d, want %d; stderr %s", status, tc.status, errOut)
			}
			golden.Check(t, "why-"+tc.name+".golden", []byte(out))
		})
	}
}

func TestWhyUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"why", "node-1"}, "why takes NODE and TARGET"},
		{[]string{"why", "node-1", "a/b/c"}, "want POD, NAMESPACE/POD"},
		{[]string{"why", "node-1", "x", "--all"}, "why --all takes one NODE"},
	}
	for _, tc := range tests {
		_, errOut, status := runWhy(t, fake.NewClientset(), tc.args...)
		if status != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want 1 and %q", tc.args, status, errOut, tc.want)
		}
	}
}

// TestWhyDeadline runs why against an agent that never answers for a pod's
// detail: when --node-timeout passes, why fails with an error that names
// the node and the flag instead of judging by lookups the deadline cut
// short.
func TestWhyDeadline(t *testing.T) {
	fa := whyFakeAgent()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, v1alpha1.PodPath("")) {
			<-r.Context().Done()
			return
		}
		fa.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	for _, target := range [][]string{{"--all"}, {"broken"}, {"--all", "-o", "json"}} {
		args := append(append([]string{"why", whyNode}, target...), "--agent-url", srv.URL, "--node-timeout", "1s")
		out, errOut, status := runWhy(t, whyCluster(), args...)
		if status != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want 1 and no report", target, status, out)
		}
		for _, want := range []string{"node " + whyNode, "--node-timeout=1s", "raise --node-timeout"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%v: stderr %q lacks %q", target, errOut, want)
			}
		}
	}
}

// TestWhyTakesNoNodeNameFromTheAgent: an agent that names its node to run
// a command when pasted gets why's error, naming the node asked for and
// the agent's name quoted, and no report nor suggestion.
func TestWhyTakesNoNodeNameFromTheAgent(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "ran")
	fa := whyFakeAgent()
	fa.Sources.NodeName = "$(touch${IFS}" + mark + ")"
	srv := httptest.NewServer(fa)
	t.Cleanup(srv.Close)
	out, errOut, status := runWhy(t, whyCluster(), "why", whyNode, "broken", "--agent-url", srv.URL)
	want := `the agent of node ` + whyNode + ` says it runs for node "$(touch${IFS}` + mark + `)", not ` + whyNode
	if status != 1 || !strings.Contains(errOut, want) || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing and %q", status, out, errOut, want)
	}
}

// TestWhyTargetNowhere: a target that is nowhere is the user's mistake, not
// a failing stage: exit 1, saying what was looked for and where, with the
// close matches; a cluster that does not answer is an error about the
// connection, not about rights; a real failing stage keeps exit 2.
func TestWhyTargetNowhere(t *testing.T) {
	u := whyAgent(t)
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	tests := []struct {
		name    string
		args    []string
		env     string
		status  int
		want    []string
		notWant []string
		// standalone is an agent without the API source.
		standalone bool
	}{
		{name: "typo of a name", args: []string{"etcd-node1"}, status: 1,
			want: []string{`no pod "etcd-node1" on node node-1`, "and the API server has no", "did you mean etcd-node-1?"}},
		{name: "typo of a qualified name", args: []string{"default/wbe"}, status: 1,
			want: []string{`no pod "default/wbe"`, "did you mean default/web?"}},
		{name: "no namespace", args: []string{"nosuchns/web"}, status: 1,
			want: []string{"the API server has no namespace nosuchns"}},
		{name: "no match", args: []string{"zzzzzzzzzzzzzzzzz"}, status: 1,
			want: []string{"kubectl podsrc pods node-1 lists the node's pods"}, notWant: []string{"did you mean"}},
		{name: "no such file", args: []string{whyDir + "/etcd.yml"}, status: 1,
			want: []string{"no manifest " + whyDir + "/etcd.yml on node node-1", "did you mean " + whyDir + "/etcd.yaml"}},
		{name: "a failing stage keeps its status", args: []string{"broken"}, status: ExitFailing},
		{name: "cluster refuses the connection", args: []string{"web", "--kubeconfig", "KUBECONFIG"}, status: 1,
			want: []string{"connection refused", "--kubeconfig"}, notWant: []string{"auth can-i"}},
		{name: "a typo on a standalone kubelet's node", args: []string{"shop/nosuchpod"}, standalone: true, status: 1,
			want: []string{`no pod "shop/nosuchpod" on node node-1`, "the API server has no namespace shop", "kubectl podsrc pods node-1 lists the node's pods"}},
		{name: "a typo on a standalone kubelet's node, no cluster configuration", args: []string{"shop/nosuchpod"}, standalone: true, env: "none", status: 1,
			want: []string{`no pod "shop/nosuchpod" on node node-1`, "the kubelet has no API source"}},
		{name: "a typo of a static pod on a standalone kubelet's node", args: []string{"etcd-nod-1"}, standalone: true, status: 1,
			want: []string{"did you mean etcd-node-1?"}},
		{name: "no cluster configuration", args: []string{"shop/cart"}, env: "none", status: ExitUnknown,
			want: []string{"no cluster configuration", "give kubectl podsrc the cluster"}, notWant: []string{"auth can-i", "localhost:8080"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := u
			if tc.standalone {
				fa := whyFakeAgent()
				fa.Sources.Items = fa.Sources.Items[1:]
				srv := httptest.NewServer(fa)
				defer srv.Close()
				u = srv.URL
			}
			var cs kubernetes.Interface = whyCluster()
			args := append([]string{"why", whyNode}, tc.args...)
			for i, a := range args {
				if a == "KUBECONFIG" {
					args[i], cs = kubeconfig(t, refusedURL), nil
				}
			}
			if tc.env == "none" {
				t.Setenv("KUBECONFIG", t.TempDir()+"/none")
				cs = nil
			}
			out, errOut, status := runWhy(t, cs, append(args, "--agent-url", u, "-o", "wide")...)
			if status != tc.status {
				t.Errorf("exit status %d, want %d; stdout:\n%s\nstderr:\n%s", status, tc.status, out, errOut)
			}
			checkOutput(t, out+errOut, tc.want, tc.notWant)
		})
	}
}

// TestWhyAllNodeTimeoutBoundsTheAnalysis: why --all fails with the error
// that names --node-timeout when the deadline passes while it analyzes
// the node's pods, after the agent answered in time.
func TestWhyAllNodeTimeoutBoundsTheAnalysis(t *testing.T) {
	srv := httptest.NewServer(whyFakeAgent())
	t.Cleanup(srv.Close)
	var out, errOut bytes.Buffer
	common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	common.Now = func() time.Time { return whyNow }
	common.clientset = whyCluster()
	common.AgentURL = srv.URL
	// Long enough for the agent's answers over loopback on a busy
	// machine; the analysis takes until it passes, however fast the
	// machine.
	common.NodeTimeout = 10 * time.Second
	o := newWhyOptions(common)
	o.All = true
	var mu sync.Mutex
	var analyzed []error
	o.analyze = func(ctx context.Context, f why.Facts) v1alpha1.WhyReport {
		<-ctx.Done()
		mu.Lock()
		analyzed = append(analyzed, ctx.Err())
		mu.Unlock()
		return why.Analyze(f)
	}
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	status := exitCode(common, runOptions(o)(cmd, []string{whyNode}))
	if status != 1 || !strings.Contains(errOut.String(), "within --node-timeout="+common.NodeTimeout.String()) {
		t.Errorf("exit %d, stderr %q; want 1 and the error naming --node-timeout", status, errOut.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing: a report the deadline cut short would be a guess", out.String())
	}
	if len(analyzed) == 0 {
		t.Fatal("no pod was analyzed: the agent did not answer within --node-timeout")
	}
	for _, err := range analyzed {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("an analysis ended with %v, want the deadline", err)
		}
	}
}

// BenchmarkWhyAll runs why --all on a node of 5,000 pods of the API server,
// the agent and the API server answering over loopback and from memory.
func BenchmarkWhyAll(b *testing.B) {
	fa := whyFakeAgent()
	for i := range 5000 {
		name := fmt.Sprintf("pod-%05d", i)
		fa.Pods.Items = append(fa.Pods.Items, v1alpha1.PodInfo{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			Source: v1alpha1.SourceAPI, Admission: &v1alpha1.Admission{Admitted: true}})
	}
	srv := httptest.NewServer(fa)
	b.Cleanup(srv.Close)
	for b.Loop() {
		var out, errOut bytes.Buffer
		common := NewCommonOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		common.Now = func() time.Time { return whyNow }
		common.clientset = whyCluster()
		if status := execute(context.Background(), common, []string{"why", whyNode, "--all", "--agent-url", srv.URL, "--node-timeout", "0"}); status == 1 {
			b.Fatalf("exit 1: %s", errOut.String())
		}
	}
}

func TestDidYouMeanQuotes(t *testing.T) {
	tests := []struct {
		matches []string
		want    string
	}{
		{[]string{"etcd-node-1"}, "did you mean etcd-node-1?"},
		{[]string{"default/web", "/etc/kubernetes/manifests/etcd.yaml"}, "did you mean default/web or /etc/kubernetes/manifests/etcd.yaml?"},
		{[]string{"--server=https://evil", "a b;rm -rf x"}, `did you mean '--server=https://evil' or 'a b;rm -rf x'?`},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.matches); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.matches, got, tt.want)
		}
	}
}
