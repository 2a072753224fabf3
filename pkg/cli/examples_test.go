package cli

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/internal/clidoc"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client/fakeagent"
)

// example is one kubectl podsrc command line of a command's Example.
type example struct {
	command string // the command whose help shows it
	args    []string
}

// helpExamples returns the kubectl podsrc command lines of the Example of
// every command under root: docs/commands.md shows the same (the docs
// tests check it is written from the command tree).
func helpExamples(root *cobra.Command) []example {
	var out []example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		text := strings.ReplaceAll(c.Example, "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			i := strings.Index(line, "kubectl podsrc")
			if i < 0 || strings.HasPrefix(line, "#") {
				continue
			}
			if words := clidoc.ShellWords(line[i:]); len(words) > 2 {
				out = append(out, example{command: c.CommandPath(), args: words[2:]})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// examplesAgent is node-1's fake agent with what every example selects:
// why's pods, the apiserver's manifest, a pod of the UID pod's example
// shows, a pod in namespace web, and events of every kind, source,
// handler and origin the examples filter by, more than 1234 of them, the
// newest of this last minute.
func examplesAgent() *fakeagent.Agent {
	fa := whyFakeAgent()
	fa.PLEG.Relists, fa.PLEG.Pods, fa.PLEG.RuntimeEvents = 100, 3, "following"
	fa.PLEG.RelistDuration = v1alpha1.Latency{Count: 10, P50: 0.01, P99: 0.02, Max: 0.05}
	fa.Pods.Items = append(fa.Pods.Items,
		v1alpha1.PodInfo{Name: "kube-apiserver-node-1", Namespace: "kube-system", UID: "3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b", Source: v1alpha1.SourceFile, Static: true,
			ConfigHash: "apiserver-hash", Origin: "/etc/kubernetes/manifests/kube-apiserver.yaml", Admission: &v1alpha1.Admission{Admitted: true}},
		v1alpha1.PodInfo{Name: "shop", Namespace: "web", UID: "shop-uid", Source: v1alpha1.SourceAPI, Labels: map[string]string{"app": "web"},
			Admission: &v1alpha1.Admission{Admitted: true}},
	)
	for i := range 1300 {
		fa.Publish(v1alpha1.Event{Kind: v1alpha1.EventKindPLEG, Type: "ContainerStarted", PodUID: "web-uid", PodName: "web", Namespace: "default",
			ContainerName: "app", Data: "containerd://w1", Handler: v1alpha1.SyncHandlerPodSyncs, Time: metav1.NewMicroTime(whyNow.Add(time.Duration(i) * time.Second))})
	}
	fa.Publish(liveEvents()...)
	return fa
}

// liveEvents are events that every example's filters keep one of: a
// manifest's ADD and UPDATE, a pod's container death, labelled app=web,
// in namespace web, and a PLEG event the sync loop ignores.
func liveEvents() []v1alpha1.Event {
	now := metav1.NewMicroTime(time.Now())
	labels := map[string]string{"app": "web"}
	return []v1alpha1.Event{
		{Time: now, Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpAdd, Source: v1alpha1.SourceFile, Handler: v1alpha1.SyncHandlerPodAdditions,
			Pods: []v1alpha1.PodRef{{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-uid", Origin: "/etc/kubernetes/manifests/web.yaml", Labels: labels}}},
		{Time: now, Kind: v1alpha1.EventKindConfig, Op: v1alpha1.OpUpdate, Source: v1alpha1.SourceFile, Handler: v1alpha1.SyncHandlerPodUpdates,
			Pods: []v1alpha1.PodRef{{Name: "etcd-node-1", Namespace: "kube-system", UID: "etcd-uid", Origin: "/etc/kubernetes/manifests/etcd.yaml"}}},
		{Time: now, Kind: v1alpha1.EventKindPLEG, Type: "ContainerDied", PodUID: "shop-uid", PodName: "shop", Namespace: "web", ContainerName: "app",
			Data: "containerd://s1", Labels: labels, Handler: v1alpha1.SyncHandlerIgnored},
	}
}

// TestHelpExamples runs every kubectl podsrc command line of every
// command's Example (and so of docs/commands.md) against node-1's fake
// agent, behind a fake API server, and checks that each prints what it
// says, with no empty value: a jsonpath's fields, a table's rows, the
// names of the objects -o json and yaml print. deploy runs with
// --print-only, so that it changes nothing; a watch runs until it printed
// the events published once it streams.
func TestHelpExamples(t *testing.T) {
	fa := examplesAgent()
	agent := httptest.NewServer(fa)
	t.Cleanup(agent.Close)
	api := httptest.NewServer(&deployAPIServer{fakeAPIServer{agents: map[string]string{"node-1": agent.URL}, nodes: []string{"node-1"}, kubelet: "v1.36.3"}})
	t.Cleanup(api.Close)
	kc := kubeconfig(t, api.URL)
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}
	examples := helpExamples(newRootCommand(NewCommonOptions(streams)))
	if len(examples) < 40 {
		t.Fatalf("found %d examples; the parser misses them", len(examples))
	}
	// The examples' archive, which those of --from read, is recorded
	// first, in a directory of the test's.
	archiveFile := filepath.Join(t.TempDir(), "node-1.tar.gz")
	if _, errOut, err := run(t, context.Background(), "--kubeconfig", kc, "record", "node-1", "-o", archiveFile); err != nil {
		t.Fatalf("recording node-1: %v, stderr:\n%s", err, errOut)
	}
	for _, ex := range examples {
		args := slices.Clone(ex.args)
		for i, a := range args {
			// The one agent there is, the one archive.
			args[i] = strings.Replace(a, "http://10.0.0.5:10270", agent.URL, 1)
			args[i] = strings.Replace(args[i], "node-1.tar.gz", archiveFile, 1)
		}
		if args[0] == "deploy" && !slices.Contains(args, "--print-only") {
			args = append(args, "--print-only")
		}
		if args[0] == "undeploy" {
			// It deletes the agents' namespace: the check is that the
			// command line is accepted.
			args = append(args, "--help")
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			args := append([]string{"--kubeconfig", kc, "--cache-dir", t.TempDir()}, args...)
			out, errOut, err := runExample(t, fa, args)
			var status exitStatus
			if err != nil && !(ex.args[0] == "why" && errors.As(err, &status) && (status == 2 || status == 3)) {
				t.Fatalf("error %v, stderr:\n%s", err, errOut)
			}
			if problems := emptyValues(args, out); len(problems) > 0 {
				t.Errorf("%s; stdout:\n%s", strings.Join(problems, "; "), out)
			}
		})
	}
}

// runExample runs kubectl podsrc with args as run does; a watch runs in
// the background until it printed what the fake agent publishes once its
// stream started.
func runExample(t *testing.T, fa *fakeagent.Agent, args []string) (string, string, error) {
	t.Helper()
	if !slices.Contains(args, "watch") || slices.Contains(args, "--help") {
		return run(t, context.Background(), args...)
	}
	// Only this command's stream counts.
	for len(fa.StreamStarted()) > 0 {
		<-fa.StreamStarted()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errOut, done := startCommand(ctx, args...)
	select {
	case <-fa.StreamStarted():
	case err := <-done:
		return out.String(), errOut.String(), err
	case <-time.After(10 * time.Second):
		t.Fatalf("no stream; stderr:\n%s", errOut.String())
	}
	fa.Publish(liveEvents()...)
	awaitOutput(t, out, errOut, func(stdout string) bool { return len(emptyValues(args, stdout)) == 0 })
	cancel()
	return out.String(), errOut.String(), <-done
}

// emptyValues says what of out, printed by kubectl podsrc args, is empty:
// nothing at all, a jsonpath line with an empty field, a table without
// rows, an object of -o json or yaml without a name.
func emptyValues(args []string, out string) []string {
	if strings.TrimSpace(out) == "" {
		return []string{"nothing printed"}
	}
	output := ""
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "-o="); ok {
			output = v
		} else if a == "-o" && i+1 < len(args) {
			output = args[i+1]
		}
	}
	var problems []string
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	switch {
	case strings.HasPrefix(output, "jsonpath="):
		for _, l := range lines {
			if l == "" || strings.TrimSpace(l) != l || strings.Contains(l, "  ") {
				problems = append(problems, "a jsonpath line with an empty field: "+strconv.Quote(l))
			}
		}
	case output == "json" || output == "yaml":
		docs := []string{out}
		if output == "json" && slices.Contains(args, "watch") {
			docs = lines // one JSON object per line
		}
		for _, d := range docs {
			var v any
			if err := yaml.Unmarshal([]byte(d), &v); err != nil {
				problems = append(problems, "not "+output+": "+err.Error())
				continue
			}
			problems = append(problems, unnamed(v, "")...)
		}
	case output == "" || output == "wide":
		if strings.HasPrefix(lines[0], "NODE") || strings.HasPrefix(lines[0], "NAMESPACE") || strings.HasPrefix(lines[0], "NAME") {
			if len(lines) < 2 {
				problems = append(problems, "a table without rows")
			}
		}
	}
	return problems
}

// unnamed returns where in v an object's metadata has no name.
func unnamed(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if m, ok := v["metadata"].(map[string]any); ok {
			if name, _ := m["name"].(string); name == "" {
				out = append(out, path+".metadata.name is empty")
			}
		}
		for k, sub := range v {
			out = append(out, unnamed(sub, path+"."+k)...)
		}
	case []any:
		for i, sub := range v {
			out = append(out, unnamed(sub, path+"["+strconv.Itoa(i)+"]")...)
		}
	}
	return out
}
