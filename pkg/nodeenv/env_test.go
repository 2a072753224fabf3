package nodeenv

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

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
containerRuntimeEndpoint: unix:///run/crio/crio.sock
`)
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		hostname string
		want     Env
		// wantStaticPodPath is the kubelet configuration's staticPodPath,
		// "" for none.
		wantStaticPodPath string
		wantErr           string
	}{
		{
			name:     "kubelet config, node from the hostname",
			args:     []string{"--host-root", root, "--kubelet-config", configPath},
			hostname: "Worker-7",
			want:     Env{NodeName: "worker-7", HostRoot: root},
			// The kubelet resolves it against the file's directory.
			wantStaticPodPath: "/var/lib/kubelet/manifests",
		},
		{
			name: "node flag first",
			args: []string{"--node-name", "Node-A"},
			env:  map[string]string{"NODE_NAME": "from-env"},
			want: Env{NodeName: "Node-A"},
		},
		{
			name: "no config file, node from env",
			env:  map[string]string{"NODE_NAME": "from-env"},
			want: Env{NodeName: "from-env"},
		},
		{
			name:    "no node name",
			wantErr: "no --node-name, no NODE_NAME and no hostname",
		},
		{
			name:     "blank hostname",
			hostname: " ",
			wantErr:  "no --node-name, no NODE_NAME and a blank hostname: give --node-name",
		},
		{
			name:    "missing config file",
			args:    []string{"--kubelet-config", "/nonexistent/config.yaml", "--node-name", "n"},
			wantErr: "reading kubelet config /nonexistent/config.yaml",
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
			got, err := f.Resolve()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The kubelet configuration comes with the result, for the
			// sources' settings and the agent's runtime endpoint.
			if withConfig := tc.wantStaticPodPath != ""; (got.Kubelet != nil) != withConfig {
				t.Errorf("kubelet configuration %v, want one: %v", got.Kubelet, withConfig)
			} else if withConfig && (got.Kubelet.StaticPodPath != tc.wantStaticPodPath || got.Kubelet.ContainerRuntimeEndpoint != "unix:///run/crio/crio.sock") {
				t.Errorf("kubelet configuration's staticPodPath %q containerRuntimeEndpoint %q, want %q and the file's",
					got.Kubelet.StaticPodPath, got.Kubelet.ContainerRuntimeEndpoint, tc.wantStaticPodPath)
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
