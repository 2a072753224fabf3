package source

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestFlagsResolve(t *testing.T) {
	root := t.TempDir()
	const configPath = "/var/lib/kubelet/config.yaml"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(configPath)), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, configPath), `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
staticPodPath: manifests
staticPodURL: http://127.0.0.1:9000/pods
staticPodURLHeader:
  Authorization: ["Bearer x"]
fileCheckFrequency: 5s
`)
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		hostname string
		want     Config
		wantErr  string
	}{
		{
			name:     "kubelet config with defaults",
			args:     []string{"--host-root", root, "--kubelet-config", configPath},
			hostname: "Worker-7",
			want: Config{
				NodeName: "worker-7", HostRoot: root,
				StaticPodPath: "/var/lib/kubelet/manifests", StaticPodURL: "http://127.0.0.1:9000/pods",
				StaticPodURLHeader: http.Header{"Authorization": {"Bearer x"}},
				FileCheckFrequency: 5 * time.Second, HTTPCheckFrequency: 20 * time.Second,
				EnableAPISource: true,
			},
		},
		{
			name: "flags override",
			args: []string{"--host-root", root, "--kubelet-config", configPath, "--static-pod-path", "/etc/kubernetes/manifests",
				"--static-pod-url", "", "--static-pod-url-header", "X-A: 1", "--static-pod-url-header", "X-A: 2",
				"--http-check-frequency", "1m", "--node-name", "Node-A"},
			env: map[string]string{"NODE_NAME": "from-env"},
			want: Config{
				NodeName: "Node-A", HostRoot: root,
				StaticPodPath:      "/etc/kubernetes/manifests",
				StaticPodURLHeader: http.Header{"X-A": {"1", "2"}},
				FileCheckFrequency: 5 * time.Second, HTTPCheckFrequency: time.Minute,
				EnableAPISource: true,
			},
		},
		{
			name: "no config file: sources off, node from env",
			env:  map[string]string{"NODE_NAME": "from-env"},
			want: Config{NodeName: "from-env", FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second, EnableAPISource: true},
		},
		{
			name: "API source off",
			args: []string{"--node-name", "n", "--api-source=false"},
			want: Config{NodeName: "n", FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second},
		},
		{
			name: "kubeconfig",
			args: []string{"--node-name", "n", "--kubeconfig", "/etc/podsrc/kubeconfig"},
			want: Config{NodeName: "n", FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second,
				EnableAPISource: true, Kubeconfig: "/etc/podsrc/kubeconfig"},
		},
		{
			name:    "missing config file",
			args:    []string{"--kubelet-config", "/nonexistent/config.yaml", "--node-name", "n"},
			wantErr: "reading kubelet config /nonexistent/config.yaml",
		},
		{
			name: "bad header",
			// The item may be a credential: the error does not quote it.
			args:    []string{"--static-pod-url-header", "X-A: 1", "--static-pod-url-header", "Bearer-c0ffee", "--node-name", "n"},
			wantErr: "--static-pod-url-header, occurrence 2 of 2: want 'Name: value'",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f := &Flags{
				Getenv: func(k string) string { return tc.env[k] },
				Hostname: func() (string, error) {
					if tc.hostname == "" {
						return "", errors.New("no hostname")
					}
					return tc.hostname, nil
				},
			}
			f.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := f.Resolve(fs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The kubelet configuration comes with the result as read,
			// for the agent's runtime endpoint.
			if withConfig := slices.Contains(tc.args, "--kubelet-config"); (got.Kubelet != nil) != withConfig {
				t.Errorf("kubelet configuration %v, want one: %v", got.Kubelet, withConfig)
			} else if withConfig && got.Kubelet.StaticPodPath != "manifests" {
				t.Errorf("kubelet configuration's staticPodPath %q, want it as written", got.Kubelet.StaticPodPath)
			}
			got.Kubelet = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestLoadKubeletConfigFieldNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	write(t, path, `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
StaticPodPath: /not/seen/by/the/kubelet
staticPodURL: http://127.0.0.1:9000/pods
unknownField: ignored
`)
	kc, err := LoadKubeletConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if kc.StaticPodPath != "" || kc.StaticPodURL != "http://127.0.0.1:9000/pods" {
		t.Errorf("staticPodPath %q staticPodURL %q, want only the exactly named field", kc.StaticPodPath, kc.StaticPodURL)
	}
}
