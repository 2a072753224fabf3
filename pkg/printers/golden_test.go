package printers

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/podsrc/podsrc/internal/golden"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// now is the clock of every golden table.
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(-d)); return &t }

func fixtureSources() []v1alpha1.SourceList {
	return []v1alpha1.SourceList{{
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindSourceList), NodeName: "node-1", Mode: "incremental",
		AllSourcesSeen: true, AgentVersion: "v0.1.0", ReproducedKubeletVersion: "v1.36.3",
		Items: []v1alpha1.Source{
			{Name: "api", Target: "https://10.0.0.1:6443", Seen: true, LastUpdate: ago(5 * time.Second), Pods: 3, Updates: 12},
			{Name: "file", Target: "/etc/kubernetes/manifests", Seen: true, LastUpdate: ago(3 * time.Minute), Pods: 2, Updates: 4,
				RejectedFiles: []v1alpha1.RejectedFile{{Path: "/etc/kubernetes/manifests/bad.yaml", Error: "invalid pod: spec.containers: Required value", Since: *ago(time.Hour)}},
				ShadowedFiles: []v1alpha1.ShadowedFile{{Path: "/etc/kubernetes/manifests/kube-apiserver.yaml", By: "/etc/kubernetes/manifests/kube-apiserver.yaml.bak", Pod: "kube-system/kube-apiserver-node-1"}},
				WarnedFiles: []v1alpha1.WarnedFile{{Path: "/etc/kubernetes/manifests/etcd.yaml", Pod: "kube-system/etcd-node-1", Warnings: []string{
					"kubelet v1.37 warns: priority 1000 without a priorityClassName: the mirror pod may fail to be created unless the default priority class has that priority"}}}},
		},
	}, {
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindSourceList), NodeName: "node-2", Mode: "incremental",
		Items: []v1alpha1.Source{
			{Name: "http", Target: "http://config.example/pods", Seen: false, Pods: 0,
				LastError: "Get \"http://config.example/pods\": dial tcp 10.0.0.9:80: connect: connection refused; retrying in 20s after 12 failures\nsecond line", LastErrorTime: ago(2 * 24 * time.Hour)},
		},
	}}
}

func fixturePods() []v1alpha1.PodList {
	return []v1alpha1.PodList{{
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPodList), NodeName: "node-1",
		Items: []v1alpha1.PodInfo{
			{Name: "etcd-node-1", Namespace: "kube-system", UID: "3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b", Source: "file", Origin: "/etc/kubernetes/manifests/etcd.yaml", Static: true, ConfigHash: "3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b",
				Labels:     map[string]string{"component": "etcd", "tier.example.com/level": "control-plane"},
				KubeletUID: "3f1c1b0e8d8a4e0c9b3d2a1f0e9d8c7b", KubeletUIDFrom: "sandbox",
				FirstSeen: now.Add(-49 * time.Hour).Format(time.RFC3339Nano), Admission: &v1alpha1.Admission{Admitted: true},
				Containers: []string{"etcd"}, RestartPolicy: "Always",
				Runtime: &v1alpha1.RuntimePod{SandboxID: "abc", SandboxState: "ready", IPs: []string{"10.0.0.5"},
					Containers: []v1alpha1.RuntimeContainer{{ID: "c1", Name: "etcd", State: "running", Image: "registry.k8s.io/etcd:3.6", RestartCount: 2}}}},
			{Name: "kube-apiserver-node-1", Namespace: "kube-system", UID: "9d2e4c6a8b0f1e3d5c7a9b1d3f5e7a9c", Source: "file", Static: true, ConfigHash: "9d2e4c6a8b0f1e3d5c7a9b1d3f5e7a9c",
				KubeletUID: "5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b", KubeletUIDFrom: "mirror",
				FirstSeen: now.Add(-49 * time.Hour).Format(time.RFC3339Nano), Containers: []string{"kube-apiserver"}, RestartPolicy: "Always",
				Admission: &v1alpha1.Admission{Reason: "UnexpectedAdmissionError", Handler: "predicate",
					Message: "Allocate failed due to preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 1900), ]"}},
			{Name: "web", Namespace: "default", UID: "8e0b5a8e-6f43-4c0e-9a3e-8f1c2b7d6a50", Source: "api",
				Labels:    map[string]string{"app": "web\x1b[2J"},
				FirstSeen: now.Add(-90 * time.Second).Format(time.RFC3339Nano), Admission: &v1alpha1.Admission{Admitted: true, ReadBack: true},
				Containers: []string{"app", "sidecar"}, RestartPolicy: "Always",
				Runtime: &v1alpha1.RuntimePod{SandboxState: "notready",
					Containers: []v1alpha1.RuntimeContainer{{Name: "app", State: "exited", ExitCode: 2, Reason: "Error", RestartCount: 5}, {Name: "sidecar", State: "running"}}}},
			{Name: "quitter", Namespace: "default", UID: "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", Source: "api",
				FirstSeen: now.Add(-time.Minute).Format(time.RFC3339Nano), Admission: &v1alpha1.Admission{Admitted: true},
				Containers: []string{"quitter"}, RestartPolicy: "Never",
				Runtime: &v1alpha1.RuntimePod{SandboxState: "ready",
					Containers: []v1alpha1.RuntimeContainer{{Name: "quitter", State: "exited", ExitCode: 2, Reason: "Error"}}}},
			{Name: "waiting", Namespace: "default", UID: "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901", Source: "api",
				FirstSeen: now.Add(-5 * time.Second).Format(time.RFC3339Nano), Admission: &v1alpha1.Admission{Admitted: true},
				Containers: []string{"main"}, RestartPolicy: "Always"},
			{Name: "orphan", Namespace: "default", UID: "11111111-2222-3333-4444-555555555555",
				Runtime: &v1alpha1.RuntimePod{SandboxState: "ready", Error: "rpc error: code = DeadlineExceeded"}},
		},
	}}
}

func fixturePLEG() []v1alpha1.PLEGStatus {
	return []v1alpha1.PLEGStatus{{
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus), NodeName: "node-1", Enabled: true, Healthy: true,
		RuntimeEndpoint: "unix:///run/containerd/containerd.sock", LastRelist: ago(time.Second), Relists: 3600,
		RelistDuration: v1alpha1.Latency{Count: 3600, Last: 0.012, P50: 0.0113, P99: 0.0871, Max: 1.532},
		RelistInterval: v1alpha1.Latency{Count: 3600, P50: 1.0012, Max: 2.5},
		Calls: map[string]v1alpha1.Latency{
			"ListPodSandbox": {Count: 3600, Last: 0.0009, P50: 0.00081, P99: 0.0042, Max: 0.03},
			"ListContainers": {Count: 3600, Last: 0.0011, P50: 0.001, P99: 0.005, Max: 0.04},
		},
		SlowestPods:   []v1alpha1.SlowPod{{UID: "u-1", Name: "etcd-node-1", Namespace: "kube-system", Seconds: 0.25, Time: *ago(10 * time.Minute)}},
		EventsDropped: 0, Pods: 12, RunningPods: 11, RuntimeEvents: "following", EventRelists: 420,
	}, {
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindPLEGStatus), NodeName: "node-2", Enabled: true, Healthy: false,
		Message: "pleg was last seen active 4m0s ago; threshold is 3m0s", LastError: "rpc error: code = Unavailable",
		ConsecutiveFailures: 240, RelistFailures: 250, Relists: 1000, LastRelist: ago(4 * time.Minute), EventsDropped: 3,
		RuntimeEvents: "broken", RuntimeEventsError: "rpc error: code = Unavailable", EventRelists: 7,
	}}
}

// fixtureWhyReports are why --all's reports: one pod's two manifests (told
// apart by ORIGIN only), a URL pod and an API pod whose messages are too
// long for a cell.
func fixtureWhyReports() []v1alpha1.WhyReport {
	report := func(pod v1alpha1.WhyPod, verdict, stage, msg, fix string) v1alpha1.WhyReport {
		return v1alpha1.WhyReport{TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindWhyReport), NodeName: "node-1", Target: pod.Name, Pod: pod,
			Verdict: verdict, Stage: stage, Suggestion: fix, Stages: []v1alpha1.WhyStage{{Name: stage, Verdict: verdict, Message: msg}}}
	}
	web := func(origin string) v1alpha1.WhyPod {
		return v1alpha1.WhyPod{Namespace: "demo", Name: "web-node-1", Source: "file", Origin: origin}
	}
	long := "Node didn't have enough resource: cpu, requested: 4000, used: 1850, capacity: 2000; " +
		"the kubelet rejects the pod at admission and sets its phase to Failed with reason OutOfcpu, " +
		"and it does not retry: a static pod stays rejected until its manifest changes, and an API pod " +
		"until it is deleted and created again, by its controller or by hand, on a node with room for it " +
		"(requests are what count, not what the containers use)"
	return []v1alpha1.WhyReport{
		report(web("/etc/kubernetes/manifests/web.yaml"), "unknown", "config", "shadowed by /etc/kubernetes/manifests/web.yaml.bak", "mv /etc/kubernetes/manifests/web.yaml.bak /root/"),
		report(web("/etc/kubernetes/manifests/web.yaml.bak"), "failing", "containers", "web exited with code 2", ""),
		report(v1alpha1.WhyPod{Namespace: "demo", Name: "cfg-node-1", Source: "http", Origin: "http://config.example/pods?token=xxxxx"},
			"failing", "admission", long, "kubectl podsrc why node-1 demo/cfg-node-1 -o wide # then lower the pod's cpu requests in the manifest the URL serves, or free cpu on the node"),
		report(v1alpha1.WhyPod{Namespace: "default", Name: "big", Source: "api"}, "failing", "admission", "OutOfcpu", ""),
	}
}

func fixtureMessages() []*v1alpha1.StreamMessage {
	at := func(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(now.Add(d)) }
	exit := 137
	no := false
	pods := fixturePods()[0]
	return []*v1alpha1.StreamMessage{
		{Type: v1alpha1.MessageSnapshot, Seq: 40, Snapshot: &pods, Time: at(0)},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 41, Time: at(time.Second), Kind: "config", Op: "ADD", Source: "file",
			Pods: []v1alpha1.PodRef{{Name: "etcd-node-1", Namespace: "kube-system", UID: "3f1c", Origin: "/etc/kubernetes/manifests/etcd.yaml", Admission: &v1alpha1.Admission{Admitted: true},
				Warnings: []string{"kubelet v1.37 warns: priority 1000 without a priorityClassName: the mirror pod may fail to be created unless the default priority class has that priority"}},
				{Name: "kube-apiserver-node-1", Namespace: "kube-system", UID: "9a2b", Origin: "/etc/kubernetes/manifests/kube-apiserver.yaml", Admission: &v1alpha1.Admission{Reason: "OutOfcpu", Handler: "predicate",
					Message: "Node didn't have enough resource: cpu, requested: 3000, used: 350, capacity: 2000"}}},
			Handler: v1alpha1.SyncHandlerPodAdditions}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 42, Time: at(2 * time.Second), Kind: "pleg", Type: "ContainerDied",
			PodUID: "3f1c", PodName: "etcd-node-1", Namespace: "kube-system", Data: "containerd://0123456789abcdef0123", ContainerName: "etcd", ExitCode: &exit,
			Handler: v1alpha1.SyncHandlerPodSyncs, Removes: []string{"fedcba9876543210fedc", "abcdefabcdefabcdefab"}}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 43, Time: at(3 * time.Second), Kind: "pleg", Type: "ContainerChanged",
			PodUID: "3f1c", PodName: "etcd-node-1", Namespace: "kube-system", Data: "0123456789abcdef", Sandbox: true, KubeletSends: &no,
			Handler: v1alpha1.SyncHandlerIgnored, Ignored: "the kubelet's PLEG does not send ContainerChanged"}},
		{Type: v1alpha1.MessageGap, From: 44, To: 90, Time: at(4 * time.Second)},
		{Type: v1alpha1.MessageReset, Time: at(5 * time.Second)},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 1, Time: at(6 * time.Second), Kind: "config", Op: "REMOVE", Source: "api",
			Pods: []v1alpha1.PodRef{{Name: "web", Namespace: "default", UID: "8e0b"}}, Handler: v1alpha1.SyncHandlerPodRemoves}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 2, Time: at(7 * time.Second), Kind: "pleg", Type: "ContainerRemoved",
			PodUID: "8e0b", PodName: "web", Namespace: "default", Data: "fedcba9876543210fedc", ContainerName: "nginx",
			Handler: v1alpha1.SyncHandlerIgnored, Ignored: "ContainerRemoved is not sync-worthy"}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 3, Time: at(8 * time.Second), Kind: "pleg", Type: "ContainerDied",
			PodUID: "8e0b", PodName: "web", Namespace: "default", Data: "0123456789abcdef0123", ContainerName: "nginx",
			Handler: v1alpha1.SyncHandlerIgnored, Ignored: "pod not in the pod manager", RemovesUnknown: "the pod is not in the pod manager: ..."}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 4, Time: at(9 * time.Second), Kind: "config", Op: "SET", Source: "api",
			Handler: v1alpha1.SyncHandlerIgnored, Ignored: "Invalid operation type received"}},
		// touch web.yaml with web.yaml.bak present: the kubelet's file
		// source swaps the pod of one for the other's.
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 5, Time: at(10 * time.Second), Kind: "config", Op: "REMOVE", Source: "file",
			Pods: []v1alpha1.PodRef{{Name: "web-node-1", Namespace: "demo", UID: "b4k1", Origin: "/etc/kubernetes/manifests/web.yaml.bak"}}, Handler: v1alpha1.SyncHandlerPodRemoves}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 6, Time: at(10 * time.Second), Kind: "config", Op: "ADD", Source: "file",
			Pods: []v1alpha1.PodRef{{Name: "web-node-1", Namespace: "demo", UID: "w3b1", Origin: "/etc/kubernetes/manifests/web.yaml",
				Admission: &v1alpha1.Admission{Admitted: true}}}, Handler: v1alpha1.SyncHandlerPodAdditions}},
		{Type: v1alpha1.MessageEvent, Event: &v1alpha1.Event{Seq: 7, Time: at(11 * time.Second), Kind: "config", Op: "ADD", Source: "http",
			Pods: []v1alpha1.PodRef{{Name: "cfg-node-1", Namespace: "demo", UID: "c7g1", Origin: "http://config.example/pods?token=xxxxx",
				Admission: &v1alpha1.Admission{Admitted: true}}}, Handler: v1alpha1.SyncHandlerPodAdditions}},
	}
}

func TestGoldenPrintables(t *testing.T) {
	podKind := schema.GroupKind{Group: v1alpha1.GroupName, Kind: v1alpha1.KindPod}
	printables := []struct {
		name   string
		p      Printable
		kind   schema.GroupKind
		labels bool
		// sortBy is a field worth sorting on, and columns a
		// custom-columns spec.
		sortBy, columns string
	}{
		{"sources", Sources{Lists: fixtureSources()}, schema.GroupKind{}, false,
			"{.lastUpdate}", "NODE:.nodeName,SOURCE:.metadata.name,ERROR:.lastError"},
		{"sources-single", Sources{Lists: fixtureSources()[:1]}, schema.GroupKind{}, false,
			"{.pods}", "NODE:.nodeName,SOURCE:.metadata.name,PODS:.pods"},
		{"pods", Pods{Lists: fixturePods()}, podKind, true,
			"{.metadata.name}", "NODE:.nodeName,NAMESPACE:.metadata.namespace,NAME:.metadata.name,APP:.metadata.labels.app"},
		{"pleg", PLEG{Statuses: fixturePLEG()}, schema.GroupKind{}, false,
			"{.relists}", "NODE:.nodeName,HEALTHY:.healthy,P99:.relistDuration.p99Seconds"},
		{"why-all", WhyReports{Reports: fixtureWhyReports()}, schema.GroupKind{}, false,
			"{.pod.origin}", "NODE:.nodeName,POD:.pod.name,ORIGIN:.pod.origin"},
	}
	type format struct {
		name  string
		setup func(f *PrintFlags, sortBy, columns string)
	}
	set := func(o string) func(*PrintFlags, string, string) {
		return func(f *PrintFlags, _, _ string) { *f.OutputFormat = o }
	}
	formats := []format{
		{"table", func(*PrintFlags, string, string) {}},
		{"wide", set("wide")},
		{"no-headers", func(f *PrintFlags, _, _ string) { *f.NoHeaders = true }},
		{"color", func(f *PrintFlags, _, _ string) { f.Color = "always" }},
		{"json", set("json")},
		{"yaml", set("yaml")},
		{"name", set("name")},
		{"jsonpath", set(`jsonpath={range .items[*]}{.nodeName}{"\t"}{.metadata.name}{"\n"}{end}`)},
		{"go-template", func(f *PrintFlags, _, _ string) {
			*f.OutputFormat = "go-template"
			*f.TemplateFlags.TemplateArgument = `{{.kind}}{{"\n"}}`
		}},
		{"custom-columns", func(f *PrintFlags, _, columns string) { *f.OutputFormat = "custom-columns=" + columns }},
		{"custom-columns-no-headers", func(f *PrintFlags, _, columns string) {
			*f.OutputFormat, *f.NoHeaders = "custom-columns="+columns, true
		}},
		{"sort-by", func(f *PrintFlags, sortBy, _ string) { *f.HumanReadableFlags.SortBy = sortBy }},
		{"sort-by-name", func(f *PrintFlags, sortBy, _ string) {
			*f.OutputFormat, *f.HumanReadableFlags.SortBy = "name", sortBy
		}},
		{"sort-by-json", func(f *PrintFlags, sortBy, _ string) {
			*f.OutputFormat, *f.HumanReadableFlags.SortBy = "json", sortBy
		}},
	}
	kindFormats := []format{{"show-kind", func(f *PrintFlags, _, _ string) { *f.HumanReadableFlags.ShowKind = true }}}
	labelFormats := []format{
		{"show-labels", func(f *PrintFlags, _, _ string) { *f.HumanReadableFlags.ShowLabels = true }},
		{"label-columns", func(f *PrintFlags, _, _ string) {
			*f.HumanReadableFlags.ColumnLabels = []string{"app", "tier.example.com/level"}
		}},
		{"label-columns-wide", func(f *PrintFlags, _, _ string) {
			*f.OutputFormat = "wide"
			*f.HumanReadableFlags.ColumnLabels = []string{"app"}
			*f.HumanReadableFlags.ShowLabels = true
		}},
	}
	for _, p := range printables {
		all := formats
		if !p.kind.Empty() {
			all = append(all, kindFormats...)
		}
		if p.labels {
			all = append(all, labelFormats...)
		}
		for _, f := range all {
			t.Run(p.name+"/"+f.name, func(t *testing.T) {
				flags := NewPrintFlags()
				flags.List, flags.Labels = true, p.labels
				flags.Color = "never"
				flags.SetKind(p.kind)
				f.setup(flags, p.sortBy, p.columns)
				var out, errOut bytes.Buffer
				pr, err := flags.ToPrinter(&out, &errOut, func() time.Time { return now })
				if err != nil {
					t.Fatal(err)
				}
				if err := pr.Print(p.p, &out); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, p.name+"-"+f.name+".txt", out.Bytes())
			})
		}
	}
}

// TestOneShapeForOneNodeOrMany checks that a jsonpath over the items gives
// one node's answer the shape it gives several nodes' answers.
func TestOneShapeForOneNodeOrMany(t *testing.T) {
	sources := fixtureSources()
	pods := append(fixturePods(), v1alpha1.PodList{NodeName: "node-2", Items: []v1alpha1.PodInfo{{Name: "web", Namespace: "default", UID: "u-9", Source: "api"}}})
	pleg := fixturePLEG()
	tests := []struct {
		name      string
		one, many Printable
		wantOne   string
		wantMany  string
	}{
		{"sources", Sources{Lists: sources[:1]}, Sources{Lists: sources},
			"node-1/api node-1/file ", "node-1/api node-1/file node-2/http "},
		{"pods", Pods{Lists: pods[:1]}, Pods{Lists: pods},
			"node-1/etcd-node-1 node-1/kube-apiserver-node-1 node-1/web node-1/quitter node-1/waiting node-1/orphan ",
			"node-1/etcd-node-1 node-1/kube-apiserver-node-1 node-1/web node-1/quitter node-1/waiting node-1/orphan node-2/web "},
		{"pleg", PLEG{Statuses: pleg[:1]}, PLEG{Statuses: pleg},
			"node-1/node-1 ", "node-1/node-1 node-2/node-2 "},
	}
	const jsonpath = `jsonpath={range .items[*]}{.nodeName}/{.metadata.name} {end}`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				p    Printable
				want string
			}{{tc.one, tc.wantOne}, {tc.many, tc.wantMany}} {
				flags := NewPrintFlags()
				flags.List = true
				*flags.OutputFormat = jsonpath
				pr, err := flags.ToPrinter(io.Discard, io.Discard, nil)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := pr.Print(c.p, &out); err != nil {
					t.Fatal(err)
				}
				if out.String() != c.want {
					t.Errorf("%s gives %q, want %q", jsonpath, out.String(), c.want)
				}
			}
		})
	}
}

func TestSortByRejectsWhatItCannotSort(t *testing.T) {
	tests := []struct{ name, field, want string }{
		{"unknown field", "{.noSuchField}", "couldn't find any field"},
		{"booleans", "{.static}", "strings or numbers"},
		{"objects", ".runtime", "strings or numbers"},
	}
	for _, tc := range tests {
		for _, o := range []string{"", "json"} {
			t.Run(tc.name+"/"+o, func(t *testing.T) {
				flags := NewPrintFlags()
				flags.List = true
				*flags.OutputFormat = o
				*flags.HumanReadableFlags.SortBy = tc.field
				pr, err := flags.ToPrinter(io.Discard, io.Discard, nil)
				if err != nil {
					t.Fatal(err)
				}
				err = pr.Print(Pods{Lists: fixturePods()}, io.Discard)
				if err == nil || !strings.Contains(err.Error(), "--sort-by") || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Print = %v, want an error naming --sort-by and saying %q", err, tc.want)
				}
			})
		}
	}
}

func TestBrief(t *testing.T) {
	refused := `Get "http://config.example/pods": dial tcp 10.0.0.9:80: connect: connection refused`
	deep := `reading manifest /etc/kubernetes/manifests/kube-apiserver.yaml: open /host/etc/kubernetes/manifests/kube-apiserver.yaml: permission denied`
	tests := []struct{ name, in, want string }{
		{"short", "dial tcp: connection refused", "dial tcp: connection refused"},
		{"trailing line feed", "refused\n", "refused"},
		{"two lines", "first\nsecond", "first" + briefMore},
		{"controls escaped", "a\x1b[2Jb", `a\x1b[2Jb`},
		// Shortened from the middle: the head says what was being done,
		// the tail keeps whole causes, the root one last.
		{"wrapped error keeps its cause", refused, `Get "http://config.example/pods": dial tcp 10.0.0.9:…connect: connection refused` + briefMore},
		{"the causes that fit", deep, `reading manifest /etc/kubernetes/manifests/kube-apiserver.yaml…permission denied` + briefMore},
		{"no causes", strings.Repeat("x", 100), strings.Repeat("x", 40) + briefCut + strings.Repeat("x", 39) + briefMore},
		{"a last cause longer than half", "failed: " + strings.Repeat("a", 50) + strings.Repeat("z", 50), "failed: " + strings.Repeat("a", 32) + briefCut + strings.Repeat("z", 39) + briefMore},
		{"long first line of two", refused + "\nsecond line", `Get "http://config.example/pods": dial tcp 10.0.0.9:…connect: connection refused` + briefMore},
		{"list items", "a.yaml (by a.yaml.bak); " + strings.Repeat("b", 60) + ".yaml (by c.yaml); d.yaml (by e.yaml)", "a.yaml (by a.yaml.bak); " + strings.Repeat("b", 37) + "…d.yaml (by e.yaml)" + briefMore},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := brief(tc.in)
			if got != tc.want {
				t.Fatalf("brief(%q) =\n%q, want\n%q", tc.in, got, tc.want)
			}
			if n := len([]rune(strings.TrimSuffix(got, briefMore))); n > briefWidth {
				t.Errorf("brief kept %d characters, more than %d", n, briefWidth)
			}
		})
	}
}

func TestGoldenWatch(t *testing.T) {
	formats := []struct {
		name  string
		setup func(*PrintFlags)
	}{
		{"table", func(*PrintFlags) {}},
		{"wide", func(f *PrintFlags) { *f.OutputFormat = "wide" }},
		{"no-headers", func(f *PrintFlags) { *f.NoHeaders = true }},
		{"color", func(f *PrintFlags) { f.Color = "always" }},
		{"json", func(f *PrintFlags) { *f.OutputFormat = "json" }},
		{"yaml", func(f *PrintFlags) { *f.OutputFormat = "yaml" }},
		{"jsonpath", func(f *PrintFlags) { *f.OutputFormat = `jsonpath={.nodeName} {.type} {.event.seq}{"\n"}` }},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			flags := NewPrintFlags()
			flags.Color = "never"
			f.setup(flags)
			var out bytes.Buffer
			wp, err := flags.ToWatchPrinter(&out, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range fixtureMessages() {
				if err := wp.PrintMessage("node-1", m); err != nil {
					t.Fatal(err)
				}
			}
			golden.Check(t, "watch-"+f.name+".txt", out.Bytes())
		})
	}
}

func TestEmptyTableSaysNoResources(t *testing.T) {
	var out, errOut bytes.Buffer
	pr, err := NewPrintFlags().ToPrinter(&out, &errOut, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.Print(Pods{Lists: []v1alpha1.PodList{{NodeName: "n"}}}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || strings.TrimSpace(errOut.String()) != "No resources found" {
		t.Fatalf("out %q, errOut %q", out.String(), errOut.String())
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name    string
		seconds float64
		want    string
	}{
		{"zero", 0, "0"},
		{"microseconds", 0.00085, "850µs"},
		{"milliseconds", 0.01234, "12.3ms"},
		{"seconds", 1.234, "1.23s"},
		{"minutes", 125, "2m5s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Seconds(tc.seconds); got != tc.want {
				t.Fatalf("Seconds(%v) = %q, want %q", tc.seconds, got, tc.want)
			}
		})
	}
	if got := Age(now, now.Add(-50*time.Hour)); got != "2d2h" {
		t.Errorf("Age = %q", got)
	}
}

func TestBadOutputFormat(t *testing.T) {
	f := NewPrintFlags()
	*f.OutputFormat = "xml"
	if _, err := f.ToPrinter(io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "allowed formats") {
		t.Fatalf("ToPrinter = %v", err)
	}
	if _, err := f.ToWatchPrinter(io.Discard, nil); err == nil || !strings.Contains(err.Error(), "allowed formats") {
		t.Fatalf("ToWatchPrinter = %v", err)
	}
	for _, format := range []string{"", "json"} {
		f = NewPrintFlags()
		f.Color = "sometimes"
		*f.OutputFormat = format
		if _, err := f.ToPrinter(io.Discard, io.Discard, nil); err == nil {
			t.Fatalf("ToPrinter accepted --color sometimes with -o %q", format)
		}
		if _, err := f.ToWatchPrinter(io.Discard, nil); err == nil {
			t.Fatalf("ToWatchPrinter accepted --color sometimes with -o %q", format)
		}
	}
}
