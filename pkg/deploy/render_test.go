package deploy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/podsrc/podsrc/manifests"
	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/journal"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenOptions are three groups: kubeadm nodes with kubelet v1.36 (their
// admission settings read from their configuration), one
// kubeadm node with kubelet v1.34, and one k3s node whose kubelet also
// polls a static pod URL with credentials ("s3cret"); a v1.31 node is left
// out.
func goldenOptions(t *testing.T) RenderOptions {
	t.Helper()
	k3s := AssumeLayout(&corev1.Node{Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.36.0+k3s1"}}}).Layout
	k3s.StaticPodURL = "http://pods:s3cret@10.0.0.9/pods"
	k3s.StaticPodURLHeader = map[string][]string{"X-B": {"2"}, "X-A": {"1", "0"}, "Authorization": {"Bearer s3cret"}}
	k3s.HTTPCheckFrequency = 30 * time.Second
	kubeadm := DefaultLayout()
	kubeadm.Admission = &KubeletAdmission{AllowedUnsafeSysctls: []string{"net.core.somaxconn"}, CPUManagerPolicy: "static", ShutdownGracePeriod: 30 * time.Second}
	groups, unsupported, err := GroupNodes([]NodeLayout{
		{Node: "cp-1", Layout: kubeadm, Minor: kubeletminor.V136}, {Node: "cp-2", Layout: kubeadm, Minor: kubeletminor.V136},
		{Node: "old-1", Layout: DefaultLayout(), Minor: kubeletminor.V134},
		{Node: "edge-1", Layout: k3s, Minor: kubeletminor.V136}, {Node: "legacy-1", Layout: DefaultLayout(), Minor: 31},
	}, DefaultLayout(), "")
	if err != nil {
		t.Fatal(err)
	}
	return RenderOptions{
		Namespace:    "podsrc-test",
		Image:        "registry.example/podsrc-agent:v1.2.3",
		APIServerURL: "https://10.0.0.1:6443",
		NodeSelector: "pool in (a,b),!spot",
		AllowedCIDRs: []string{"10.0.0.1/32", "fd00::1/128"},
		Groups:       groups,
		Excluded:     []string{unsupported[0].Node},
	}
}

// TestRenderGolden is the output of deploy --print-only for goldenOptions.
// Run with -update to accept a changed manifest.
func TestRenderGolden(t *testing.T) {
	objs, err := Render(manifests.DaemonSet, goldenOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, objs); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "print-only.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/deploy -run TestRenderGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("rendered manifest differs from %s (-want +got); if intended, rerun with -update:\n%s", golden, diff)
	}
}

// TestRenderDaemonSets checks what each layout's DaemonSet gets, and that
// the agent accepts its arguments.
func TestRenderDaemonSets(t *testing.T) {
	o := goldenOptions(t)
	objs, err := Render(manifests.DaemonSet, o)
	if err != nil {
		t.Fatal(err)
	}
	var dss []appsv1.DaemonSet
	secrets := map[string]corev1.Secret{}
	for _, obj := range objs {
		if obj.GetNamespace() != "" && obj.GetNamespace() != o.Namespace {
			t.Errorf("%s %s is in namespace %s, want %s", obj.GetKind(), obj.GetName(), obj.GetNamespace(), o.Namespace)
		}
		if obj.GetKind() == "Namespace" && obj.GetName() != o.Namespace {
			t.Errorf("Namespace %s, want %s", obj.GetName(), o.Namespace)
		}
		if obj.GetKind() == "Secret" {
			var s corev1.Secret
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &s); err != nil {
				t.Fatal(err)
			}
			secrets[s.Name] = s
		}
		if obj.GetKind() != "DaemonSet" {
			continue
		}
		if b, err := json.Marshal(obj.Object); err != nil || bytes.Contains(b, []byte("s3cret")) {
			t.Errorf("DaemonSet %s holds a credential of the static pod URL: %s", obj.GetName(), b)
		}
		var ds appsv1.DaemonSet
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &ds); err != nil {
			t.Fatal(err)
		}
		dss = append(dss, ds)
	}
	if len(dss) != len(o.Groups) {
		t.Fatalf("%d DaemonSets for %d layouts", len(dss), len(o.Groups))
	}
	for i, g := range o.Groups {
		ds := dss[i]
		if ds.Name != DaemonSetName(g) || ds.Spec.Selector.MatchLabels[instanceLabel] != ds.Name || ds.Spec.Template.Labels[instanceLabel] != ds.Name {
			t.Errorf("DaemonSet %s: selector %v, template labels %v", ds.Name, ds.Spec.Selector.MatchLabels, ds.Spec.Template.Labels)
		}
		c := ds.Spec.Template.Spec.Containers[0]
		if want := fmt.Sprintf("%s-kubelet1.%d", o.Image, int(g.Minor)); c.Image != want {
			t.Errorf("%s: image %s, want %s", ds.Name, c.Image, want)
		}
		// The agent parses the arguments as the DaemonSet gives them.
		fs := pflag.NewFlagSet("podsrc-agent", pflag.ContinueOnError)
		agent.NewOptions().AddFlags(fs)
		if err := fs.Parse(c.Args); err != nil {
			t.Errorf("%s: the agent rejects its arguments %q: %v", ds.Name, c.Args, err)
		}
		if !slices.Contains(c.Args, "--allowed-cidrs=10.0.0.1/32,fd00::1/128") {
			t.Errorf("%s: the agent answers more than the API server's addresses: %q", ds.Name, c.Args)
		}
		for _, a := range c.Args {
			if strings.HasPrefix(a, "--kubelet-config") {
				t.Errorf("%s: the agent is told to read the kubelet's file (%s); its settings should be flags", ds.Name, a)
			}
		}
		// Every host path is mounted at /host + the path, read-only; the
		// CRI socket's directory without propagation, which a host whose
		// mounts are private allows too.
		mounts := map[string]corev1.VolumeMount{}
		for _, m := range c.VolumeMounts {
			mounts[m.Name] = m
		}
		want := map[string]string{staticPodsVol: g.Layout.StaticPodPath, criRuntimeVol: filepath.Dir(g.Layout.SocketPath())}
		for _, v := range ds.Spec.Template.Spec.Volumes {
			m := mounts[v.Name]
			if v.Secret != nil {
				checkURLSecret(t, g, v, m, secrets)
				continue
			}
			if v.Name == journalVol {
				checkJournal(t, ds.Name, v, m, c.Args)
				continue
			}
			if v.HostPath == nil || v.HostPath.Path != want[v.Name] || m.MountPath != "/host"+want[v.Name] || !m.ReadOnly {
				t.Errorf("%s: volume %s = %+v mounted %+v, want host path %s read-only at /host%s", ds.Name, v.Name, v.VolumeSource, m, want[v.Name], want[v.Name])
			}
			if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
				t.Errorf("%s: volume %s is mounted with %s propagation, which a host with private mounts refuses", ds.Name, v.Name, *m.MountPropagation)
			}
		}
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		if env["KUBERNETES_SERVICE_HOST"] != "10.0.0.1" || env["KUBERNETES_SERVICE_PORT"] != "6443" {
			t.Errorf("%s: the API server's address is not set from --api-server-url: %v", ds.Name, env)
		}
		aff := ds.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(aff) != 1 || len(aff[0].MatchExpressions) != 2 || len(aff[0].MatchFields) != 1 {
			t.Fatalf("%s: node affinity %+v, want one term with the selector's two requirements and the node names", ds.Name, aff)
		}
		f := aff[0].MatchFields[0]
		switch {
		case g.Default && (f.Operator != corev1.NodeSelectorOpNotIn || !cmp.Equal(f.Values, []string{"edge-1", "legacy-1", "old-1"})):
			t.Errorf("%s: the default group's DaemonSet should run on every node but edge-1, legacy-1 (unsupported) and old-1: %+v", ds.Name, f)
		case !g.Default && (f.Operator != corev1.NodeSelectorOpIn || !cmp.Equal(f.Values, g.Nodes)):
			t.Errorf("%s: should run on %v only: %+v", ds.Name, g.Nodes, f)
		}
	}
}

// journalVol is the DaemonSet's volume of the agent's journal.
const journalVol = "journal"

// checkJournal checks that the agent's journal directory is a host
// directory created if missing, the only host path mounted read-write,
// where --journal-dir says.
func checkJournal(t *testing.T, name string, v corev1.Volume, m corev1.VolumeMount, args []string) {
	t.Helper()
	if v.HostPath == nil || v.HostPath.Path != journal.DefaultDir || v.HostPath.Type == nil || *v.HostPath.Type != corev1.HostPathDirectoryOrCreate {
		t.Errorf("%s: journal volume %+v, want host directory %s, created if missing", name, v.VolumeSource, journal.DefaultDir)
	}
	// One directory a node, within the volume: nodes that share a host
	// keep their own journals.
	dir := journal.DefaultDir + "/$(NODE_NAME)"
	if m.MountPath != journal.DefaultDir || m.ReadOnly || !slices.Contains(args, "--journal-dir="+dir) {
		t.Errorf("%s: journal mounted %+v with args %q, want it writable at %s and --journal-dir=%s", name, m, args, journal.DefaultDir, dir)
	}
}

// checkURLSecret checks that the group's static pod URL and headers reach
// its agent through the Secret volume v mounted at m, in files its
// arguments name.
func checkURLSecret(t *testing.T, g Group, v corev1.Volume, m corev1.VolumeMount, secrets map[string]corev1.Secret) {
	t.Helper()
	s, ok := secrets[v.Secret.SecretName]
	if !ok || m.MountPath != urlSecretDir || !m.ReadOnly || *v.Secret.DefaultMode != 0o400 {
		t.Fatalf("static pod URL Secret volume %+v mounted %+v; Secrets %v", v.Secret, m, secrets)
	}
	wantData := map[string]string{urlSecretKey: g.Layout.StaticPodURL, headerSecretKey: "Authorization: Bearer s3cret\nX-A: 1\nX-A: 0\nX-B: 2\n"}
	if got := map[string]string{urlSecretKey: string(s.Data[urlSecretKey]), headerSecretKey: string(s.Data[headerSecretKey])}; !cmp.Equal(got, wantData) {
		t.Errorf("Secret %s holds %q, want %q", s.Name, got, wantData)
	}
	// The agent reads what the files hold as the layout's URL and headers.
	dir := t.TempDir()
	var args []string
	for _, a := range g.Layout.Args() {
		args = append(args, strings.ReplaceAll(a, urlSecretDir, dir))
	}
	for k, b := range s.Data {
		if err := os.WriteFile(filepath.Join(dir, k), b, 0o400); err != nil {
			t.Fatal(err)
		}
	}
	o := agent.NewOptions()
	fs := pflag.NewFlagSet("podsrc-agent", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	src, err := o.Sources.Resolve(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.StaticPodURL != g.Layout.StaticPodURL || !cmp.Equal(map[string][]string(src.StaticPodURLHeader), g.Layout.StaticPodURLHeader) {
		t.Errorf("the agent reads URL %q, headers %v from the Secret's files", src.StaticPodURL, src.StaticPodURLHeader)
	}
}

// TestRenderMaskedCredentials renders for printing: the Secret holds the
// URL and headers with their credentials masked.
func TestRenderMaskedCredentials(t *testing.T) {
	o := goldenOptions(t)
	o.MaskCredentials = true
	objs, err := Render(manifests.DaemonSet, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, objs); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, obj := range objs {
		if obj.GetKind() != "Secret" {
			continue
		}
		found = true
		var s corev1.Secret
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &s); err != nil {
			t.Fatal(err)
		}
		if got := string(s.Data[urlSecretKey]); got != "http://xxxxx@10.0.0.9/pods" {
			t.Errorf("masked URL %q", got)
		}
		if got := string(s.Data[headerSecretKey]); got != "Authorization: xxxxx\nX-A: xxxxx\nX-A: xxxxx\nX-B: xxxxx\n" {
			t.Errorf("masked headers %q", got)
		}
	}
	if !found || strings.Contains(buf.String(), "s3cret") || strings.Contains(buf.String(), base64.StdEncoding.EncodeToString([]byte("s3cret"))[:6]) {
		t.Errorf("masked rendering (Secret found: %t):\n%s", found, buf.String())
	}
}

// TestRenderCredentialsOnly refuses layouts that differ only in their
// static pod URL's credentials, whose DaemonSets would share a name.
func TestRenderCredentialsOnly(t *testing.T) {
	a, b := DefaultLayout(), DefaultLayout()
	a.StaticPodURL, b.StaticPodURL = "http://u:one@10.0.0.9/pods", "http://u:two@10.0.0.9/pods"
	groups, _, err := GroupNodes([]NodeLayout{{Node: "a", Layout: a, Minor: kubeletminor.V136}, {Node: "b", Layout: b, Minor: kubeletminor.V136}, {Node: "c", Layout: DefaultLayout(), Minor: kubeletminor.V136}, {Node: "d", Layout: DefaultLayout(), Minor: kubeletminor.V136}}, DefaultLayout(), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(manifests.DaemonSet, RenderOptions{Namespace: "ns", Groups: groups})
	if err == nil || !strings.Contains(err.Error(), "two layouts differ only in their static pod URL's credentials (on a; on b)") || strings.Contains(err.Error(), "u:one") {
		t.Errorf("error %v", err)
	}
}

func TestRenderErrors(t *testing.T) {
	base := RenderOptions{Namespace: "ns", Groups: []Group{{Layout: DefaultLayout(), Default: true}}}
	tests := []struct {
		name    string
		change  func(*RenderOptions)
		wantErr string
	}{
		{"http API server", func(o *RenderOptions) { o.APIServerURL = "http://10.0.0.1:8080" }, "--api-server-url"},
		{"API server with a path", func(o *RenderOptions) { o.APIServerURL = "https://10.0.0.1/k8s" }, "--api-server-url"},
		{"bad selector", func(o *RenderOptions) { o.NodeSelector = "a in (" }, "--node-selector"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.change(&o)
			if _, err := Render(manifests.DaemonSet, o); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
	if _, err := Render([]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"), base); err == nil {
		t.Error("a manifest without a DaemonSet rendered")
	}
}

// TestRenderWithoutRuntime drops the volumes of what the node lacks.
func TestRenderWithoutRuntime(t *testing.T) {
	objs, err := Render(manifests.DaemonSet, RenderOptions{Namespace: "ns", Groups: []Group{{Layout: Layout{StaticPodPath: "/etc/k.yaml", FileCheckFrequency: time.Second}, Default: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var ds appsv1.DaemonSet
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[len(objs)-1].Object, &ds); err != nil {
		t.Fatal(err)
	}
	vols := ds.Spec.Template.Spec.Volumes
	if len(vols) != 2 || vols[0].Name != staticPodsVol || *vols[0].HostPath.Type != corev1.HostPathFile || vols[1].Name != journalVol {
		t.Errorf("volumes %+v, want only the static pod file and the journal", vols)
	}
	if !cmp.Equal(ds.Spec.Template.Spec.Containers[0].Args[1:4], []string{"--static-pod-path=/etc/k.yaml", "--file-check-frequency=1s", "--runtime-endpoint="}) {
		t.Errorf("args %q", ds.Spec.Template.Spec.Containers[0].Args)
	}
}
