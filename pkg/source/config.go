package source

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Flags are the agent's command-line settings for the pod sources. Each
// static pod setting overrides the kubelet's configuration file only when its
// flag was given.
type Flags struct {
	// KubeletConfig is the kubelet's configuration file, a host path.
	KubeletConfig string
	// HostRoot is where the host's file system is mounted.
	HostRoot string
	// NodeName is the kubelet's node name.
	NodeName string

	StaticPodPath      string
	StaticPodURL       string
	StaticPodURLHeader []string
	FileCheckFrequency time.Duration
	HTTPCheckFrequency time.Duration

	// APISource, when its flag is given, turns the API server source on or
	// off; it is on by default, as in a kubelet with a kubeconfig.
	APISource bool
	// Kubeconfig is podsrc's own kubeconfig for the API server source, a
	// path in podsrc's file system (not under HostRoot); empty means the
	// in-cluster configuration.
	Kubeconfig string

	// Getenv and Hostname default to os.Getenv and os.Hostname.
	Getenv   func(string) string
	Hostname func() (string, error)
}

// Flag names.
const (
	FlagKubeletConfig      = "kubelet-config"
	FlagHostRoot           = "host-root"
	FlagNodeName           = "node-name"
	FlagStaticPodPath      = "static-pod-path"
	FlagStaticPodURL       = "static-pod-url"
	FlagStaticPodURLHeader = "static-pod-url-header"
	FlagFileCheckFrequency = "file-check-frequency"
	FlagHTTPCheckFrequency = "http-check-frequency"
	FlagAPISource          = "api-source"
	FlagKubeconfig         = "kubeconfig"
)

// AddFlags registers the flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.KubeletConfig, FlagKubeletConfig, "", "The kubelet's configuration file (a host path, read under --host-root); staticPodPath, staticPodURL, staticPodURLHeader, fileCheckFrequency and httpCheckFrequency come from it unless overridden.")
	fs.StringVar(&f.HostRoot, FlagHostRoot, "", "Where the host's file system is mounted (for example /host in a DaemonSet); host paths are read under it but hashed and reported as they are.")
	fs.StringVar(&f.NodeName, FlagNodeName, "", "The kubelet's node name, exactly as the kubelet has it (default: $NODE_NAME, then the lower-cased hostname).")
	fs.StringVar(&f.StaticPodPath, FlagStaticPodPath, "", "The kubelet's staticPodPath (a host path; empty turns the file source off).")
	fs.StringVar(&f.StaticPodURL, FlagStaticPodURL, "", "The kubelet's staticPodURL (empty turns the URL source off).")
	fs.StringArrayVar(&f.StaticPodURLHeader, FlagStaticPodURLHeader, nil, "A header sent to the static pod URL, as 'Name: value'; repeat for more (replaces all of staticPodURLHeader).")
	fs.DurationVar(&f.FileCheckFrequency, FlagFileCheckFrequency, DefaultFileCheckFrequency, "The kubelet's fileCheckFrequency: the period of the full relist of the static pod path.")
	fs.DurationVar(&f.HTTPCheckFrequency, FlagHTTPCheckFrequency, DefaultHTTPCheckFrequency, "The kubelet's httpCheckFrequency: the period of the static pod URL fetch.")
	fs.BoolVar(&f.APISource, FlagAPISource, true, "Watch the node's pods on the API server, as the kubelet does (false turns the API server source off).")
	fs.StringVar(&f.Kubeconfig, FlagKubeconfig, "", "podsrc's kubeconfig for the API server source (a path in podsrc's own file system); empty means the in-cluster configuration.")
}

// Config is the resolved configuration of the pod sources. An empty
// StaticPodPath or StaticPodURL means that source is off; so does a false
// EnableAPISource for the API server source.
type Config struct {
	NodeName           string
	HostRoot           string
	StaticPodPath      string
	StaticPodURL       string
	StaticPodURLHeader http.Header
	FileCheckFrequency time.Duration
	HTTPCheckFrequency time.Duration
	EnableAPISource    bool
	// Kubeconfig is the API server source's kubeconfig; empty means the
	// in-cluster configuration.
	Kubeconfig string
	// Kubelet is the kubelet configuration file as Resolve read it, nil
	// without one, for what else a caller takes from it (the runtime
	// endpoint), so that the file is read once.
	Kubelet *kubeletv1beta1.KubeletConfiguration
}

// Resolve combines the kubelet's configuration file (if any) with the flags
// given on fs, and determines the node name.
func (f *Flags) Resolve(fs *pflag.FlagSet) (Config, error) {
	getenv, hostname := f.Getenv, f.Hostname
	if getenv == nil {
		getenv = os.Getenv
	}
	if hostname == nil {
		hostname = os.Hostname
	}
	cfg := Config{
		HostRoot:           f.HostRoot,
		EnableAPISource:    true,
		Kubeconfig:         f.Kubeconfig,
		FileCheckFrequency: DefaultFileCheckFrequency,
		HTTPCheckFrequency: DefaultHTTPCheckFrequency,
	}
	if f.KubeletConfig != "" {
		kc, err := LoadKubeletConfig(ReadPath(f.HostRoot, f.KubeletConfig))
		if err != nil {
			return Config{}, err
		}
		cfg.Kubelet = kc
		cfg.StaticPodPath = kc.StaticPodPath
		if cfg.StaticPodPath != "" && !filepath.IsAbs(cfg.StaticPodPath) {
			// The kubelet resolves it against the file's directory.
			cfg.StaticPodPath = filepath.Join(filepath.Dir(f.KubeletConfig), cfg.StaticPodPath)
		}
		cfg.StaticPodURL = kc.StaticPodURL
		if len(kc.StaticPodURLHeader) > 0 {
			cfg.StaticPodURLHeader = http.Header(kc.StaticPodURLHeader).Clone()
		}
		if d := kc.FileCheckFrequency.Duration; d != 0 {
			cfg.FileCheckFrequency = d
		}
		if d := kc.HTTPCheckFrequency.Duration; d != 0 {
			cfg.HTTPCheckFrequency = d
		}
	}
	changed := func(name string) bool { return fs != nil && fs.Changed(name) }
	if changed(FlagStaticPodPath) {
		cfg.StaticPodPath = f.StaticPodPath
	}
	if changed(FlagStaticPodURL) {
		cfg.StaticPodURL = f.StaticPodURL
	}
	if changed(FlagStaticPodURLHeader) {
		h, err := parseHeaders(f.StaticPodURLHeader)
		if err != nil {
			return Config{}, err
		}
		cfg.StaticPodURLHeader = h
	}
	if changed(FlagFileCheckFrequency) {
		cfg.FileCheckFrequency = f.FileCheckFrequency
	}
	if changed(FlagHTTPCheckFrequency) {
		cfg.HTTPCheckFrequency = f.HTTPCheckFrequency
	}
	if changed(FlagAPISource) {
		cfg.EnableAPISource = f.APISource
	}
	if cfg.FileCheckFrequency <= 0 || cfg.HTTPCheckFrequency <= 0 {
		return Config{}, errors.New("fileCheckFrequency and httpCheckFrequency must be positive")
	}

	switch {
	case f.NodeName != "":
		cfg.NodeName = f.NodeName
	case getenv("NODE_NAME") != "":
		cfg.NodeName = getenv("NODE_NAME")
	default:
		h, err := hostname()
		if err != nil {
			return Config{}, fmt.Errorf("no --%s, no NODE_NAME and no hostname: %w", FlagNodeName, err)
		}
		// The kubelet lower-cases the hostname it defaults its node name to.
		cfg.NodeName = strings.ToLower(strings.TrimSpace(h))
	}
	if cfg.NodeName == "" {
		return Config{}, errors.New("the node name is empty")
	}
	return cfg, nil
}

// parseHeaders parses 'Name: value' strings. Its errors never quote a
// value.
func parseHeaders(items []string) (http.Header, error) {
	h := http.Header{}
	for i, item := range items {
		name, value, ok := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			// The item is not quoted: it may be a credential.
			return nil, fmt.Errorf("--%s, occurrence %d of %d: want 'Name: value'", FlagStaticPodURLHeader, i+1, len(items))
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// LoadKubeletConfig reads a kubelet configuration file (YAML or JSON,
// kubelet.config.k8s.io/v1beta1 KubeletConfiguration) at the given path.
// Field names are matched case-sensitively and unknown fields are ignored,
// as the kubelet's lenient decoding does. The drop-in files of the kubelet's
// --config-dir are not read.
func LoadKubeletConfig(path string) (*kubeletv1beta1.KubeletConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading kubelet config %s: %w", path, err)
	}
	kc := &kubeletv1beta1.KubeletConfiguration{}
	// sigs.k8s.io/yaml's Unmarshal would match "StaticPodPath" to
	// staticPodPath, a field the kubelet does not see.
	js, err := yaml.YAMLToJSON(data)
	if err == nil {
		err = utiljson.Unmarshal(js, kc)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding kubelet config %s: %w", path, err)
	}
	if kc.Kind != "KubeletConfiguration" || kc.APIVersion != kubeletv1beta1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("kubelet config %s: kind %q apiVersion %q, want KubeletConfiguration %s",
			path, kc.Kind, kc.APIVersion, kubeletv1beta1.SchemeGroupVersion)
	}
	return kc, nil
}

// FileSource returns the file source for the configuration, or nil when
// no static pod path is configured.
func (c Config) FileSource(dec staticpod.Decoder, updates chan<- merge.PodUpdate) (*FileSource, error) {
	if c.StaticPodPath == "" {
		return nil, nil
	}
	return NewFile(FileOptions{
		Path: c.StaticPodPath, HostRoot: c.HostRoot, NodeName: c.NodeName,
		Decoder: dec, Period: c.FileCheckFrequency, Updates: updates,
	})
}

// URLSource returns the URL source for the configuration, or nil when no
// static pod URL is configured.
func (c Config) URLSource(dec staticpod.Decoder, updates chan<- merge.PodUpdate) (*URLSource, error) {
	if c.StaticPodURL == "" {
		return nil, nil
	}
	return NewURL(URLOptions{
		URL: c.StaticPodURL, Header: c.StaticPodURLHeader, NodeName: c.NodeName,
		Decoder: dec, Period: c.HTTPCheckFrequency, Updates: updates,
	})
}

// RESTConfig returns the API server source's client configuration: the
// kubeconfig file when one is configured, the in-cluster configuration
// otherwise.
func (c Config) RESTConfig() (*rest.Config, error) {
	if c.Kubeconfig != "" {
		rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("loading --%s %s: %w", FlagKubeconfig, c.Kubeconfig, err)
		}
		return rc, nil
	}
	rc, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("no --%s and no in-cluster configuration (give --%s, or --%s=false to turn the API server source off): %w",
			FlagKubeconfig, FlagKubeconfig, FlagAPISource, err)
	}
	return rc, nil
}
