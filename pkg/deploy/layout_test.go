package deploy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfig "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

func TestLayoutFromKubelet(t *testing.T) {
	tests := []struct {
		name string
		kc   kubeletconfig.KubeletConfiguration
		want Layout
	}{{
		name: "defaults for what the configuration leaves out",
		kc:   kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests"},
		want: Layout{StaticPodPath: "/etc/kubernetes/manifests", FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second, RuntimeEndpoint: "unix:///run/containerd/containerd.sock", Admission: &KubeletAdmission{}},
	}, {
		name: "everything set; a bare socket path is a unix socket",
		kc: kubeletconfig.KubeletConfiguration{
			StaticPodPath: "/srv/pods", FileCheckFrequency: metav1.Duration{Duration: 5 * time.Second},
			StaticPodURL: "http://10.0.0.1/pods", StaticPodURLHeader: map[string][]string{"X-Token": {"a"}},
			HTTPCheckFrequency:       metav1.Duration{Duration: time.Minute},
			ContainerRuntimeEndpoint: "/var/run/crio/crio.sock",
			FeatureGates:             map[string]bool{"PreventStaticPodAPIReferences": false},
			AllowedUnsafeSysctls:     []string{"net.ipv4.tcp_syncookies", "kernel.msg*"},
			CPUManagerPolicy:         "static", MemoryManagerPolicy: "Static", TopologyManagerPolicy: "single-numa-node",
			ShutdownGracePeriod:              metav1.Duration{Duration: 30 * time.Second},
			ShutdownGracePeriodByPodPriority: []kubeletconfig.ShutdownGracePeriodByPodPriority{{Priority: 100000, ShutdownGracePeriodSeconds: 60}},
		},
		want: Layout{StaticPodPath: "/srv/pods", FileCheckFrequency: 5 * time.Second, StaticPodURL: "http://10.0.0.1/pods", StaticPodURLHeader: map[string][]string{"X-Token": {"a"}}, HTTPCheckFrequency: time.Minute, RuntimeEndpoint: "unix:///var/run/crio/crio.sock",
			FeatureGates: map[string]bool{"PreventStaticPodAPIReferences": false},
			Admission: &KubeletAdmission{AllowedUnsafeSysctls: []string{"kernel.msg*", "net.ipv4.tcp_syncookies"}, CPUManagerPolicy: "static", MemoryManagerPolicy: "Static", TopologyManagerPolicy: "single-numa-node",
				ShutdownGracePeriod: time.Minute}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, LayoutFromKubelet(&tc.kc)); diff != "" {
				t.Errorf("layout (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssumeLayout(t *testing.T) {
	node := func(kubelet, runtime string, labels map[string]string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels},
			Status:     corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: kubelet, ContainerRuntimeVersion: runtime}},
		}
	}
	tests := []struct {
		name               string
		node               *corev1.Node
		wantName, wantPath string
		wantEndpoint       string
	}{
		{"kubeadm", node("v1.36.3", "containerd://2.1.0", nil), "kubeadm or kind with containerd", "/etc/kubernetes/manifests", "unix:///run/containerd/containerd.sock"},
		{"kind", node("v1.36.3", "containerd://2.1.0", map[string]string{"kubernetes.io/hostname": "kind-control-plane"}), "kubeadm or kind with containerd", "/etc/kubernetes/manifests", "unix:///run/containerd/containerd.sock"},
		{"minikube", node("v1.36.3", "containerd://1.7.0", map[string]string{"minikube.k8s.io/name": "minikube"}), "minikube with containerd", "/etc/kubernetes/manifests", "unix:///run/containerd/containerd.sock"},
		{"minikube with docker", node("v1.36.3", "docker://27.0.0", map[string]string{"minikube.k8s.io/name": "minikube"}), "a cri-dockerd node (kubeadm paths)", "/etc/kubernetes/manifests", "unix:///var/run/cri-dockerd.sock"},
		{"k3s", node("v1.36.3+k3s1", "containerd://2.0.5-k3s1", nil), "k3s", "/var/lib/rancher/k3s/agent/pod-manifests", "unix:///run/k3s/containerd/containerd.sock"},
		{"rke2", node("v1.36.3+rke2r1", "containerd://2.0.5-k3s1", nil), "RKE2", "/var/lib/rancher/rke2/agent/pod-manifests", "unix:///run/k3s/containerd/containerd.sock"},
		{"cri-o", node("v1.36.3", "cri-o://1.36.0", nil), "a CRI-O node (kubeadm paths)", "/etc/kubernetes/manifests", "unix:///var/run/crio/crio.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := AssumeLayout(tc.node)
			if k.Name != tc.wantName || k.Layout.StaticPodPath != tc.wantPath || k.Layout.RuntimeEndpoint != tc.wantEndpoint {
				t.Errorf("assumed %q: %s; want %q: static pods %s, CRI %s", k.Name, k.Layout, tc.wantName, tc.wantPath, tc.wantEndpoint)
			}
			if err := k.Layout.validate(); err != nil {
				t.Errorf("the assumed layout is invalid: %v", err)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	none, sock := "", "unix:///x.sock"
	got := Overrides{StaticPodPath: &none, RuntimeEndpoint: &sock}.Apply(DefaultLayout())
	if got.StaticPodPath != "" || got.RuntimeEndpoint != sock {
		t.Errorf("overridden layout: %s", got)
	}
	if got := (Overrides{}).Apply(DefaultLayout()); !cmp.Equal(got, DefaultLayout()) {
		t.Errorf("no overrides changed the layout: %s", got)
	}
}

func TestGroupNodes(t *testing.T) {
	kubeadm := DefaultLayout()
	k3s := AssumeLayout(&corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.36.0+k3s1"}}}).Layout
	crio := kubeadm
	crio.RuntimeEndpoint = crioSocket
	const v133, v134, v136, v137 = kubeletminor.V133, kubeletminor.V134, kubeletminor.V136, kubeletminor.V137
	tests := []struct {
		name        string
		nodes       []NodeLayout
		defaultNode string
		want        []Group
		unsupported []string
		wantErr     string
	}{{
		name: "no nodes: one default group of the fallback and the newest minor, for nodes that join later",
		want: []Group{{Layout: kubeadm, Minor: v137, Default: true}},
	}, {
		name:  "one layout, one minor",
		nodes: []NodeLayout{{Node: "b", Layout: kubeadm, Minor: v136}, {Node: "a", Layout: kubeadm, Minor: v136}},
		want:  []Group{{Layout: kubeadm, Minor: v136, Nodes: []string{"a", "b"}, Default: true}},
	}, {
		name: "the most common layout and minor is the default, the others follow by layout hash and minor",
		nodes: []NodeLayout{
			{Node: "w1", Layout: k3s, Minor: v136}, {Node: "cp", Layout: kubeadm, Minor: v136}, {Node: "w2", Layout: k3s, Minor: v136},
			{Node: "w3", Layout: k3s, Minor: v136}, {Node: "c1", Layout: crio, Minor: v136},
		},
		want: sortedByKey(Group{Layout: k3s, Minor: v136, Nodes: []string{"w1", "w2", "w3"}, Default: true},
			Group{Layout: kubeadm, Minor: v136, Nodes: []string{"cp"}}, Group{Layout: crio, Minor: v136, Nodes: []string{"c1"}}),
	}, {
		name: "one layout, four minors: a group per minor, the others by minor",
		nodes: []NodeLayout{
			{Node: "new-1", Layout: kubeadm, Minor: v136}, {Node: "old-1", Layout: kubeadm, Minor: v134}, {Node: "new-2", Layout: kubeadm, Minor: v136},
			{Node: "oldest", Layout: kubeadm, Minor: v133}, {Node: "old-2", Layout: kubeadm, Minor: v134}, {Node: "new-3", Layout: kubeadm, Minor: v136},
			{Node: "newest", Layout: kubeadm, Minor: v137},
		},
		want: []Group{
			{Layout: kubeadm, Minor: v136, Nodes: []string{"new-1", "new-2", "new-3"}, Default: true},
			{Layout: kubeadm, Minor: v133, Nodes: []string{"oldest"}},
			{Layout: kubeadm, Minor: v134, Nodes: []string{"old-1", "old-2"}},
			{Layout: kubeadm, Minor: v137, Nodes: []string{"newest"}},
		},
	}, {
		name: "unsupported and unreadable minors are left out",
		nodes: []NodeLayout{
			{Node: "a", Layout: kubeadm, Minor: v134}, {Node: "old", Layout: kubeadm, Kubelet: "v1.31.4", Minor: 31},
			{Node: "odd", Layout: kubeadm, Kubelet: "unknown"},
		},
		want:        []Group{{Layout: kubeadm, Minor: v134, Nodes: []string{"a"}, Default: true}},
		unsupported: []string{"old", "odd"},
	}, {
		name:        "only unsupported nodes: the default group is for nodes that join later",
		nodes:       []NodeLayout{{Node: "old", Layout: crio, Kubelet: "v1.31.4", Minor: 31}},
		want:        []Group{{Layout: kubeadm, Minor: v137, Default: true}},
		unsupported: []string{"old"},
	}, {
		name:    "a tie is the user's to break, never the hash's",
		nodes:   []NodeLayout{{Node: "a", Layout: kubeadm, Minor: v136}, {Node: "b", Layout: crio, Minor: v136}, {Node: "c", Layout: crio, Minor: v136}, {Node: "d", Layout: kubeadm, Minor: v136}},
		wantErr: "2 layouts have 2 nodes each, the most, and nodes added later get one of them: say which with --default-layout=NODE, naming a node of that layout: a, d (static pods /etc/kubernetes/manifests, CRI unix:///run/containerd/containerd.sock, kubelet v1.36); b, c (static pods /etc/kubernetes/manifests, CRI unix:///var/run/crio/crio.sock, kubelet v1.36)",
	}, {
		name:        "--default-layout breaks the tie",
		nodes:       []NodeLayout{{Node: "a", Layout: kubeadm, Minor: v136}, {Node: "b", Layout: crio, Minor: v136}},
		defaultNode: "b",
		want:        []Group{{Layout: crio, Minor: v136, Nodes: []string{"b"}, Default: true}, {Layout: kubeadm, Minor: v136, Nodes: []string{"a"}}},
	}, {
		name:        "--default-layout outweighs the count",
		nodes:       []NodeLayout{{Node: "a", Layout: kubeadm, Minor: v136}, {Node: "b", Layout: crio, Minor: v136}, {Node: "c", Layout: kubeadm, Minor: v136}},
		defaultNode: "b",
		want:        []Group{{Layout: crio, Minor: v136, Nodes: []string{"b"}, Default: true}, {Layout: kubeadm, Minor: v136, Nodes: []string{"a", "c"}}},
	}, {
		name:        "--default-layout names a node deploy does not deploy to",
		nodes:       []NodeLayout{{Node: "a", Layout: kubeadm, Minor: v136}, {Node: "old", Layout: crio, Minor: 31}},
		defaultNode: "old",
		wantErr:     "--default-layout=old: no node podsrc deploys to has that name",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups, unsupported, err := GroupNodes(tc.nodes, kubeadm, tc.defaultNode)
			if tc.wantErr != "" || err != nil {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if diff := cmp.Diff(tc.want, groups); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			var names []string
			for _, n := range unsupported {
				names = append(names, n.Node)
			}
			if !cmp.Equal(names, tc.unsupported) {
				t.Errorf("unsupported %v, want %v", names, tc.unsupported)
			}
		})
	}
}

// sortedByKey returns def first, then the others by layout hash and minor.
func sortedByKey(def Group, others ...Group) []Group {
	if len(others) == 2 && others[0].key() > others[1].key() {
		others[0], others[1] = others[1], others[0]
	}
	return append([]Group{def}, others...)
}

// TestTuningCannotWinATie tunes a node's layout (one more feature gate,
// which changes its hash and nothing else deploy looks at) in many ways
// against a group of as many nodes: none of them makes it the default;
// only --default-layout does.
func TestTuningCannotWinATie(t *testing.T) {
	honest := NodeLayout{Node: "honest", Layout: DefaultLayout(), Minor: kubeletminor.V136}
	for i := range 64 {
		tuned := NodeLayout{Node: "tuned", Layout: DefaultLayout(), Minor: kubeletminor.V136}
		tuned.Layout.FeatureGates = map[string]bool{fmt.Sprintf("Gate%d", i): true}
		for _, nodes := range [][]NodeLayout{{honest, tuned}, {tuned, honest}} {
			groups, _, err := GroupNodes(nodes, DefaultLayout(), "")
			if err == nil {
				t.Fatalf("gate %d: a tie chose %v as the default", i, groups[0].Nodes)
			}
			if !strings.Contains(err.Error(), "--default-layout=NODE") {
				t.Fatalf("gate %d: error %q does not name --default-layout", i, err)
			}
		}
		groups, _, err := GroupNodes([]NodeLayout{honest, tuned}, DefaultLayout(), "honest")
		if err != nil || !cmp.Equal(groups[0].Nodes, []string{"honest"}) || !groups[0].Default {
			t.Fatalf("gate %d with --default-layout=honest: %+v, %v", i, groups, err)
		}
	}
}

func TestLayoutValidate(t *testing.T) {
	for _, l := range []Layout{
		{RuntimeEndpoint: "npipe:////./pipe/containerd-containerd"},
		{RuntimeEndpoint: "tcp://10.0.0.1:1234"},
		{StaticPodPath: "manifests", RuntimeEndpoint: containerdSocket},
	} {
		if err := l.validate(); err == nil {
			t.Errorf("layout %s: no error", l)
		}
	}
}

// TestLayoutArgsFeatureGates checks that the kubelet's feature gates reach
// the agent: its flags from a layout resolve to the same gates, and a
// layout without gates gives no flag (nor another hash).
func TestLayoutArgsFeatureGates(t *testing.T) {
	gates := map[string]bool{"PreventStaticPodAPIReferences": false, "InPlacePodVerticalScaling": true}
	l := LayoutFromKubelet(&kubeletconfig.KubeletConfiguration{StaticPodPath: "/etc/kubernetes/manifests", FeatureGates: gates})
	o := agent.NewOptions()
	fs := pflag.NewFlagSet("podsrc-agent", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(append(l.Args(), "--node-name=n")); err != nil {
		t.Fatalf("the agent rejects %q: %v", l.Args(), err)
	}
	src, err := o.Sources.Resolve(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(src.FeatureGates, gates) {
		t.Errorf("the agent's gates from %q: %v, want %v", l.Args(), src.FeatureGates, gates)
	}
	plain := l
	plain.FeatureGates = nil
	for _, a := range plain.Args() {
		if strings.HasPrefix(a, "--feature-gates") {
			t.Errorf("a layout without gates gives %s", a)
		}
	}
	if plain.Hash() == l.Hash() {
		t.Errorf("layouts with and without gates share the hash %s", l.Hash())
	}
}

func TestLayoutArgsAdmission(t *testing.T) {
	l := LayoutFromKubelet(&kubeletconfig.KubeletConfiguration{
		AllowedUnsafeSysctls: []string{"net.core.somaxconn", "kernel.msg*"},
		CPUManagerPolicy:     "static", TopologyManagerPolicy: "best-effort",
		ShutdownGracePeriod: metav1.Duration{Duration: 30 * time.Second},
	})
	o := agent.NewOptions()
	fs := pflag.NewFlagSet("podsrc-agent", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(l.Args()); err != nil {
		t.Fatalf("the agent rejects %q: %v", l.Args(), err)
	}
	want := agent.AdmissionFlags{AllowedUnsafeSysctls: []string{"kernel.msg*", "net.core.somaxconn"}, CPUManagerPolicy: "static", TopologyManagerPolicy: "best-effort", ShutdownGracePeriod: 30 * time.Second}
	if diff := cmp.Diff(want, o.Admission); diff != "" {
		t.Errorf("the agent's admission settings from %q (-want +got):\n%s", l.Args(), diff)
	}
	for _, f := range admissionFlags {
		if !fs.Changed(strings.TrimPrefix(f, "--")) {
			t.Errorf("%s is not given: the agent would not know the kubelet's setting", f)
		}
	}
	other := LayoutFromKubelet(&kubeletconfig.KubeletConfiguration{CPUManagerPolicy: "static"})
	if other.Hash() == LayoutFromKubelet(&kubeletconfig.KubeletConfiguration{}).Hash() {
		t.Errorf("kubelets of different CPU manager policies share a layout")
	}
	assumed := l
	assumed.Admission = nil
	for _, a := range assumed.Args() {
		if isAdmissionFlag := slices.ContainsFunc(admissionFlags, func(f string) bool { return strings.HasPrefix(a, f+"=") }); isAdmissionFlag {
			t.Errorf("a layout whose kubelet configuration was not read claims %s", a)
		}
	}
}
