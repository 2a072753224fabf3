package agent

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/source"
)

const webManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    team: payments
spec:
  containers:
  - name: app
    image: podsrc.local/testimg:v1
    args: ["--db-password=hunter2"]
    env:
    - name: DB_PASSWORD
      value: hunter2
`

// staticPod waits until the file source's pod is known and returns it.
func (ta *testAgent) staticPod(t *testing.T, name string) v1alpha1.PodInfo {
	t.Helper()
	var found v1alpha1.PodInfo
	ta.waitFor(t, "pod "+name, func() bool {
		var list v1alpha1.PodList
		ta.getJSON(t, "/api/v1alpha1/pods", &list)
		for _, p := range list.Items {
			if p.Name == name {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

func TestEndpoints(t *testing.T) {
	ta := startAgent(t, nil)
	ta.writeManifest(t, "web.yaml", webManifest)
	ta.writeManifest(t, "broken.yaml", "kind: [")
	pod := ta.staticPod(t, "web-node-1")

	// The runtime runs the static pod, and a pod no source knows.
	sb := ta.runtime.RunSandbox(string(pod.UID), pod.Name, pod.Namespace, "10.1.0.5")
	c := ta.runtime.CreateContainer(sb, "app")
	ta.runtime.StartContainer(c)
	orphan := ta.runtime.RunSandbox("orphan-uid", "ghost", "kube-system", "")

	// The runtime's state reaches the agent over several relists (list,
	// then sandbox and container status), and the file source reports the
	// broken file after the good one: each part below awaits what it checks.
	t.Run("sources", func(t *testing.T) {
		awaitJSON(t, ta, "/api/v1alpha1/sources", func(sl v1alpha1.SourceList) error {
			if sl.Kind != v1alpha1.KindSourceList || sl.APIVersion != v1alpha1.GroupVersion || sl.NodeName != "node-1" || !sl.AllSourcesSeen || sl.Mode != "incremental" {
				return fmt.Errorf("source list header: %+v", sl)
			}
			if len(sl.Items) != 1 || sl.Items[0].Name != "file" || sl.Items[0].Pods != 1 || !sl.Items[0].Seen || sl.Items[0].Target != ta.manifests {
				return fmt.Errorf("sources: %+v", sl.Items)
			}
			if r := sl.Items[0].RejectedFiles; len(r) != 1 || !strings.HasSuffix(r[0].Path, "broken.yaml") || r[0].Error == "" {
				return fmt.Errorf("rejected files: %+v", r)
			}
			return nil
		})
	})
	t.Run("pods", func(t *testing.T) {
		awaitJSON(t, ta, "/api/v1alpha1/pods", func(list v1alpha1.PodList) error {
			if len(list.Items) != 2 {
				return fmt.Errorf("%d pods, want the static one and the runtime's: %+v", len(list.Items), list.Items)
			}
			web, ghost := list.Items[0], list.Items[1]
			if web.Source != "file" || !web.Static || web.ConfigHash != string(web.UID) || web.FirstSeen == "" || web.Origin != ta.manifests+"/web.yaml" {
				return fmt.Errorf("static pod: %+v", web)
			}
			if web.Runtime == nil || web.Runtime.SandboxID != sb || web.Runtime.SandboxState != "ready" || len(web.Runtime.Containers) != 1 ||
				web.Runtime.Containers[0].ID != c || web.Runtime.Containers[0].State != "running" {
				return fmt.Errorf("runtime of the static pod: %+v", web.Runtime)
			}
			if ghost.Source != "" || string(ghost.UID) != "orphan-uid" || ghost.Runtime == nil || ghost.Runtime.SandboxID != orphan {
				return fmt.Errorf("runtime-only pod: %+v", ghost)
			}
			return nil
		})
		var list v1alpha1.PodList
		ta.getJSON(t, "/api/v1alpha1/pods?source=api", &list)
		if len(list.Items) != 0 {
			t.Fatalf("?source=api listed %+v", list.Items)
		}
	})
	t.Run("one pod", func(t *testing.T) {
		awaitJSON(t, ta, "/api/v1alpha1/pods/"+string(pod.UID), func(info v1alpha1.PodInfo) error {
			if info.Kind != v1alpha1.KindPod || info.Pod == nil || info.Pod.Spec.Containers[0].Image != "podsrc.local/testimg:v1" {
				return fmt.Errorf("pod: %+v", info)
			}
			if info.Source != "file" || !info.Static || info.Origin != ta.manifests+"/web.yaml" || info.Runtime == nil || info.Runtime.SandboxID != sb ||
				len(info.Runtime.IPs) != 1 || info.Runtime.IPs[0] != "10.1.0.5" {
				return fmt.Errorf("pod joined with the runtime: %+v %+v", info, info.Runtime)
			}
			return nil
		})
		// A pod only the runtime has is served from the runtime alone.
		awaitJSON(t, ta, "/api/v1alpha1/pods/orphan-uid", func(ghost v1alpha1.PodInfo) error {
			if ghost.Kind != v1alpha1.KindPod || ghost.Name != "ghost" || ghost.Namespace != "kube-system" || ghost.Source != "" || ghost.Pod != nil ||
				ghost.Runtime == nil || ghost.Runtime.SandboxID != orphan {
				return fmt.Errorf("runtime-only pod: %+v", ghost)
			}
			return nil
		})
		if code, _ := ta.get(t, "/api/v1alpha1/pods/no-such-uid"); code != http.StatusNotFound {
			t.Fatalf("unknown UID answered %d", code)
		}
	})
	t.Run("pleg", func(t *testing.T) {
		awaitJSON(t, ta, "/api/v1alpha1/pleg", func(st v1alpha1.PLEGStatus) error {
			if !st.Enabled || !st.Healthy || st.Relists == 0 || st.LastRelist == nil || st.RunningPods != 2 || st.EventsSent["ContainerStarted"] == 0 {
				return fmt.Errorf("pleg: %+v", st)
			}
			return nil
		})
	})
	t.Run("version", func(t *testing.T) {
		var v v1alpha1.Version
		ta.getJSON(t, "/version", &v)
		if v.NodeName != "node-1" || v.ServedVersion != v1alpha1.VersionName || v.ReproducedKubeletVersion != "v1.36.3" || v.AgentVersion == "" {
			t.Fatalf("version: %+v", v)
		}
	})
	t.Run("health", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/livez", "/readyz"} {
			if code, body := ta.get(t, p); code != http.StatusOK {
				t.Fatalf("%s: %d %s", p, code, body)
			}
		}
	})
	t.Run("metrics", func(t *testing.T) {
		code, body := ta.get(t, "/metrics")
		for _, want := range []string{`podsrc_events_total{kind="config",type="ADD"}`, `podsrc_source_seen{source="file"} 1`, "podsrc_pleg_relists_total", "podsrc_stream_subscribers"} {
			if code != http.StatusOK || !strings.Contains(string(body), want) {
				t.Fatalf("metrics lack %s", want)
			}
		}
	})
	t.Run("only GET", func(t *testing.T) {
		resp, err := http.Post(ta.url+"/api/v1alpha1/sources", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("POST answered %d", resp.StatusCode)
		}
	})
}

func TestAllowedCIDRs(t *testing.T) {
	tests := []struct {
		name string
		cidr string
		want int
	}{
		{name: "loopback allowed", cidr: "127.0.0.0/8", want: http.StatusOK},
		{name: "loopback not allowed", cidr: "10.0.0.0/8", want: http.StatusForbidden},
		// An address, as the flag's help suggests for the control plane.
		{name: "the address allowed", cidr: "127.0.0.1", want: http.StatusOK},
		{name: "another address only", cidr: "10.1.2.3", want: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := NewOptions()
			opts.AllowedCIDRs = []string{tt.cidr}
			opts.Node.NodeName = "node-1"
			opts.RuntimeEndpoint = ""
			cfg, err := opts.Complete(nil)
			if err != nil {
				t.Fatal(err)
			}
			ta := startAgent(t, func(c *Config) { c.AllowedNets = cfg.AllowedNets })
			if code, _ := ta.get(t, "/version"); code != tt.want {
				t.Fatalf("got %d, want %d", code, tt.want)
			}
			// The kubelet probes from the node's address, whatever the list.
			for _, path := range []string{"/healthz", "/livez", "/readyz"} {
				if code, body := ta.get(t, path); code != http.StatusOK {
					t.Errorf("%s answered %d %q, want 200 for the kubelet's probes", path, code, body)
				}
			}
		})
	}
}

func TestOptionsRefuseBadValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		flag string
	}{
		{name: "mode", args: []string{"--mode=fast"}, flag: "--mode"},
		{name: "relist period", args: []string{"--relist-period=0s"}, flag: "--relist-period"},
		{name: "event buffer", args: []string{"--event-buffer=-1"}, flag: "--event-buffer"},
		{name: "cidr", args: []string{"--allowed-cidrs=10.0.0.0/33"}, flag: "--allowed-cidrs"},
		{name: "listen address", args: []string{"--listen-address=nowhere"}, flag: "--listen-address"},
		{name: "tcp runtime", args: []string{"--runtime-endpoint=tcp://1.2.3.4:1"}, flag: "--runtime-endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := NewCommand(kubeletminor.V136, yamlDecoder{}, noAdmission)
			cmd.SetArgs(append([]string{"--node-name=n", "--api-source=false"}, tt.args...))
			cmd.SetOut(&strings.Builder{})
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("got %v, want an error naming %s", err, tt.flag)
			}
		})
	}
}

// TestLimitsRefuseBadValues checks that the command refuses limits the
// agent cannot run with, and a probe address that is no address, naming
// the flag.
func TestLimitsRefuseBadValues(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{args: []string{"--max-connections=0"}, flag: "--max-connections"},
		{args: []string{"--max-connections=10", "--max-connections-per-peer=11"}, flag: "--max-connections-per-peer"},
		{args: []string{"--max-streams=-1"}, flag: "--max-streams"},
		{args: []string{"--max-snapshot-requests=0"}, flag: "--max-snapshot-requests"},
		{args: []string{"--max-streams=4", "--max-streams-per-peer=5"}, flag: "--max-streams-per-peer"},
		{args: []string{"--max-snapshot-requests-per-peer=0"}, flag: "--max-snapshot-requests-per-peer"},
		{args: []string{"--probe-address=10272"}, flag: "--probe-address"},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			cmd := NewCommand(kubeletminor.V136, yamlDecoder{}, noAdmission)
			cmd.SetArgs(append([]string{"--node-name=n", "--api-source=false", "--runtime-endpoint="}, tt.args...))
			cmd.SetOut(&strings.Builder{})
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("got %v, want an error naming %s", err, tt.flag)
			}
		})
	}
}

func TestReadyOnlyWhenAllSourcesSeen(t *testing.T) {
	ta := startAgent(t, nil)
	if code, _ := ta.get(t, "/readyz"); code != http.StatusOK {
		t.Fatalf("readyz %d with the file source seen", code)
	}
	// A source registered but never heard from keeps the agent unready.
	ta.podConfig.Channel(t.Context(), "api")
	code, body := ta.get(t, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "api") {
		t.Fatalf("readyz %d %q with the api source unseen", code, body)
	}
	if names := ta.podConfig.Sources(); !slices.Equal(names, []string{"api", "file"}) {
		t.Fatalf("sources %v", names)
	}
}

func TestRuntimeEndpointFromKubeletConfig(t *testing.T) {
	tests := []struct {
		name   string
		config string
		args   []string
		want   string
	}{
		{name: "named in the config", config: "containerRuntimeEndpoint: unix:///run/crio/crio.sock\n", want: "unix:///run/crio/crio.sock"},
		{name: "the kubelet's default", config: "staticPodPath: /etc/kubernetes/manifests\n", want: DefaultRuntimeEndpoint},
		{name: "the flag wins", config: "containerRuntimeEndpoint: unix:///run/crio/crio.sock\n", args: []string{"--runtime-endpoint=/x.sock"}, want: "/x.sock"},
		{name: "turned off", config: "containerRuntimeEndpoint: unix:///run/crio/crio.sock\n", args: []string{"--runtime-endpoint="}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(path, []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"+tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			o := NewOptions()
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(append([]string{"--node-name=n", "--api-source=false", "--kubelet-config=" + path}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := o.Complete(fs)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RuntimeEndpoint != tt.want {
				t.Fatalf("runtime endpoint %q, want %q", cfg.RuntimeEndpoint, tt.want)
			}
			// Without --host-root the agent dials the socket where the host has it.
			if want := strings.TrimPrefix(tt.want, "unix://"); cfg.RuntimeSocket != want {
				t.Fatalf("runtime socket %q, want %q", cfg.RuntimeSocket, want)
			}
		})
	}
}

func TestRunNamesTheSourceItCannotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := sourcelessConfig()
	cfg.Sources = source.Config{EnableAPISource: true, Kubeconfig: missing}
	a, err := New(cfg, kubeletminor.V136, yamlDecoder{})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	err = a.Run(t.Context(), lis, nil)
	if want := "starting the api source: loading --kubeconfig " + missing; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run: %v, want an error containing %q", err, want)
	}
}
