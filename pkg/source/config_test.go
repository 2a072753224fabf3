package source

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/nodeenv"
)

func TestFlagsResolve(t *testing.T) {
	kubelet := &kubeletv1beta1.KubeletConfiguration{
		StaticPodPath:      "/var/lib/kubelet/manifests",
		StaticPodURL:       "http://127.0.0.1:9000/pods",
		StaticPodURLHeader: map[string][]string{"Authorization": {"Bearer x"}},
		FileCheckFrequency: metav1.Duration{Duration: 5 * time.Second},
		FeatureGates:       map[string]bool{"PreventStaticPodAPIReferences": false, "UserNamespacesSupport": true},
	}
	cases := []struct {
		name    string
		args    []string
		kubelet *kubeletv1beta1.KubeletConfiguration
		want    Config
		wantErr string
	}{
		{
			name:    "kubelet config with defaults",
			kubelet: kubelet,
			want: Config{
				StaticPodPath: "/var/lib/kubelet/manifests", StaticPodURL: "http://127.0.0.1:9000/pods",
				StaticPodURLHeader: http.Header{"Authorization": {"Bearer x"}},
				FileCheckFrequency: 5 * time.Second, HTTPCheckFrequency: 20 * time.Second,
				FeatureGates:    map[string]bool{"PreventStaticPodAPIReferences": false, "UserNamespacesSupport": true},
				EnableAPISource: true,
			},
		},
		{
			name: "flags override",
			args: []string{"--static-pod-path", "/etc/kubernetes/manifests",
				"--static-pod-url", "", "--static-pod-url-header", "X-A: 1", "--static-pod-url-header", "X-A: 2",
				"--http-check-frequency", "1m",
				// Gate by gate, as the kubelet merges its --feature-gates.
				"--feature-gates", "UserNamespacesSupport=false,InPlacePodVerticalScaling=true"},
			kubelet: kubelet,
			want: Config{
				StaticPodPath:      "/etc/kubernetes/manifests",
				StaticPodURLHeader: http.Header{"X-A": {"1", "2"}},
				FileCheckFrequency: 5 * time.Second, HTTPCheckFrequency: time.Minute,
				FeatureGates: map[string]bool{
					"PreventStaticPodAPIReferences": false, "UserNamespacesSupport": false, "InPlacePodVerticalScaling": true,
				},
				EnableAPISource: true,
			},
		},
		{
			name: "no config file: sources off",
			want: Config{FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second, EnableAPISource: true},
		},
		{
			name: "feature gates without a config file",
			args: []string{"--feature-gates", "PreventStaticPodAPIReferences=false"},
			want: Config{FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second,
				FeatureGates: map[string]bool{"PreventStaticPodAPIReferences": false}, EnableAPISource: true},
		},
		{
			name: "API source off",
			args: []string{"--api-source=false"},
			want: Config{FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second},
		},
		{
			name: "kubeconfig",
			args: []string{"--kubeconfig", "/etc/podsrc/kubeconfig"},
			want: Config{FileCheckFrequency: 20 * time.Second, HTTPCheckFrequency: 20 * time.Second,
				EnableAPISource: true, Kubeconfig: "/etc/podsrc/kubeconfig"},
		},
		{
			name: "bad header",
			// The item may be a credential: the error does not quote it.
			args:    []string{"--static-pod-url-header", "X-A: 1", "--static-pod-url-header", "Bearer-c0ffee"},
			wantErr: "--static-pod-url-header, occurrence 2 of 2: want 'Name: value'",
		},
		{
			name:    "period not positive",
			args:    []string{"--file-check-frequency", "0s"},
			wantErr: "fileCheckFrequency and httpCheckFrequency must be positive",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := resolveArgs(t, tc.args, tc.kubelet, tc.wantErr)
			if !ok {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// resolveArgs resolves the flags args with the kubelet's configuration
// kc; with wantErr it checks that resolving fails with an error containing
// it and no credential ("s3cret"), and returns false.
func resolveArgs(t *testing.T, args []string, kc *kubeletv1beta1.KubeletConfiguration, wantErr string) (Config, bool) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f := &Flags{}
	f.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got, err := f.Resolve(fs, kc)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("error %v, want one containing %q and no credential", err, wantErr)
		}
		return Config{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, true
}

func TestConfigSourceOptions(t *testing.T) {
	node := nodeenv.Env{NodeName: "node-1", HostRoot: "/host"}
	header := http.Header{"X-A": {"1"}}
	cases := []struct {
		name     string
		cfg      Config
		wantFile *FileOptions
		wantURL  *URLOptions
	}{
		{name: "both off", cfg: Config{FileCheckFrequency: time.Second, HTTPCheckFrequency: time.Minute, EnableAPISource: true}},
		{
			name: "both on",
			cfg: Config{StaticPodPath: "/etc/kubernetes/manifests", StaticPodURL: "http://127.0.0.1:9000/pods", StaticPodURLHeader: header,
				FileCheckFrequency: time.Second, HTTPCheckFrequency: time.Minute},
			wantFile: &FileOptions{Path: "/etc/kubernetes/manifests", HostRoot: "/host", NodeName: "node-1", Decoder: fakeDecoder{}, Period: time.Second},
			wantURL:  &URLOptions{URL: "http://127.0.0.1:9000/pods", Header: header, NodeName: "node-1", Decoder: fakeDecoder{}, Period: time.Minute},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fo, on := tc.cfg.FileOptions(node, fakeDecoder{})
			if on != (tc.wantFile != nil) || on && !reflect.DeepEqual(fo, *tc.wantFile) {
				t.Errorf("file source on %v options %+v, want %+v", on, fo, tc.wantFile)
			}
			uo, on := tc.cfg.URLOptions(node, fakeDecoder{})
			if on != (tc.wantURL != nil) || on && !reflect.DeepEqual(uo, *tc.wantURL) {
				t.Errorf("URL source on %v options %+v, want %+v", on, uo, tc.wantURL)
			}
		})
	}
}
