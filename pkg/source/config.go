package source

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Flags are the agent's command-line settings for the pod sources. Each
// static pod setting overrides the kubelet's configuration file only when its
// flag was given.
type Flags struct {
	StaticPodPath      string
	StaticPodURL       string
	StaticPodURLHeader []string
	// StaticPodURLFile and StaticPodURLHeaderFile name files in podsrc's
	// own file system (a mounted Secret) that hold the static pod URL and
	// its headers, so that credentials need not be flags.
	StaticPodURLFile       string
	StaticPodURLHeaderFile string
	FileCheckFrequency     time.Duration
	HTTPCheckFrequency     time.Duration
	// FeatureGates are the kubelet's --feature-gates: they override the
	// configuration file's featureGates one gate at a time, as in the
	// kubelet.
	FeatureGates map[string]bool

	// APISource, when its flag is given, turns the API server source on or
	// off; it is on by default, as in a kubelet with a kubeconfig.
	APISource bool
	// Kubeconfig is podsrc's own kubeconfig for the API server source, a
	// path in podsrc's file system (not under the host root); empty means
	// the in-cluster configuration.
	Kubeconfig string
}

// Flag names.
const (
	FlagStaticPodPath      = "static-pod-path"
	FlagStaticPodURL       = "static-pod-url"
	FlagStaticPodURLHeader = "static-pod-url-header"
	// FlagStaticPodURLFile and FlagStaticPodURLHeaderFile read the URL and
	// the headers from files instead.
	FlagStaticPodURLFile       = "static-pod-url-file"
	FlagStaticPodURLHeaderFile = "static-pod-url-header-file"
	FlagFileCheckFrequency     = "file-check-frequency"
	FlagHTTPCheckFrequency     = "http-check-frequency"
	FlagFeatureGates           = "feature-gates"
	FlagAPISource              = "api-source"
	FlagKubeconfig             = "kubeconfig"
)

// AddFlags registers the flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.StaticPodPath, FlagStaticPodPath, "", "The kubelet's staticPodPath (a host path; empty turns the file source off).")
	fs.StringVar(&f.StaticPodURL, FlagStaticPodURL, "", "The kubelet's staticPodURL (empty turns the URL source off).")
	fs.StringArrayVar(&f.StaticPodURLHeader, FlagStaticPodURLHeader, nil, "A header sent to the static pod URL, as 'Name: value'; repeat for more (replaces all of staticPodURLHeader).")
	fs.StringVar(&f.StaticPodURLFile, FlagStaticPodURLFile, "", "A file (in podsrc's own file system, such as a mounted Secret) holding the static pod URL, read at start instead of --"+FlagStaticPodURL+".")
	fs.StringVar(&f.StaticPodURLHeaderFile, FlagStaticPodURLHeaderFile, "", "A file (in podsrc's own file system, such as a mounted Secret) holding the static pod URL's headers, one 'Name: value' a line, read at start instead of --"+FlagStaticPodURLHeader+".")
	fs.DurationVar(&f.FileCheckFrequency, FlagFileCheckFrequency, DefaultFileCheckFrequency, "The kubelet's fileCheckFrequency: the period of the full relist of the static pod path.")
	fs.DurationVar(&f.HTTPCheckFrequency, FlagHTTPCheckFrequency, DefaultHTTPCheckFrequency, "The kubelet's httpCheckFrequency: the period of the static pod URL fetch.")
	fs.Var(cliflag.NewMapStringBool(&f.FeatureGates), FlagFeatureGates, "The kubelet's --feature-gates, as Name=true,Name=false: each overrides that gate of the kubelet config's featureGates. The static pod decoder and its validation follow the gates.")
	fs.BoolVar(&f.APISource, FlagAPISource, true, "Watch the node's pods on the API server, as the kubelet does (false turns the API server source off).")
	fs.StringVar(&f.Kubeconfig, FlagKubeconfig, "", "podsrc's kubeconfig for the API server source (a path in podsrc's own file system); empty means the in-cluster configuration.")
}

// Config is the resolved configuration of the pod sources. An empty
// StaticPodPath or StaticPodURL means that source is off; so does a false
// EnableAPISource for the API server source.
type Config struct {
	StaticPodPath      string
	StaticPodURL       string
	StaticPodURLHeader http.Header
	FileCheckFrequency time.Duration
	HTTPCheckFrequency time.Duration
	// FeatureGates are the kubelet's feature gates as its configuration
	// file and --feature-gates set them; nil when neither does.
	FeatureGates    map[string]bool
	EnableAPISource bool
	// Kubeconfig is the API server source's kubeconfig; empty means the
	// in-cluster configuration.
	Kubeconfig string
}

// Resolve combines the kubelet's configuration (nil without one) with the
// flags given on fs.
func (f *Flags) Resolve(fs *pflag.FlagSet, kc *kubeletv1beta1.KubeletConfiguration) (Config, error) {
	cfg := Config{
		EnableAPISource:    true,
		Kubeconfig:         f.Kubeconfig,
		FileCheckFrequency: DefaultFileCheckFrequency,
		HTTPCheckFrequency: DefaultHTTPCheckFrequency,
	}
	if kc != nil {
		cfg.StaticPodPath = kc.StaticPodPath
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
		cfg.FeatureGates = maps.Clone(kc.FeatureGates)
	}
	changed := func(name string) bool { return fs != nil && fs.Changed(name) }
	if changed(FlagStaticPodPath) {
		cfg.StaticPodPath = f.StaticPodPath
	}
	if changed(FlagStaticPodURL) {
		cfg.StaticPodURL = f.StaticPodURL
	}
	if changed(FlagStaticPodURLHeader) {
		h, err := parseHeaders(FlagStaticPodURLHeader, f.StaticPodURLHeader)
		if err != nil {
			return Config{}, err
		}
		cfg.StaticPodURLHeader = h
	}
	if err := f.readURLFiles(changed, &cfg); err != nil {
		return Config{}, err
	}
	if changed(FlagFileCheckFrequency) {
		cfg.FileCheckFrequency = f.FileCheckFrequency
	}
	if changed(FlagHTTPCheckFrequency) {
		cfg.HTTPCheckFrequency = f.HTTPCheckFrequency
	}
	if changed(FlagFeatureGates) && len(f.FeatureGates) > 0 {
		if cfg.FeatureGates == nil {
			cfg.FeatureGates = map[string]bool{}
		}
		maps.Copy(cfg.FeatureGates, f.FeatureGates)
	}
	if changed(FlagAPISource) {
		cfg.EnableAPISource = f.APISource
	}
	if cfg.FileCheckFrequency <= 0 || cfg.HTTPCheckFrequency <= 0 {
		return Config{}, errors.New("fileCheckFrequency and httpCheckFrequency must be positive")
	}
	return cfg, nil
}

// parseHeaders parses 'Name: value' strings, given by flag. Its errors
// never quote a value.
func parseHeaders(flag string, items []string) (http.Header, error) {
	h := http.Header{}
	for i, item := range items {
		name, value, ok := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			// The item is not quoted: it may be a credential.
			return nil, fmt.Errorf("--%s, occurrence %d of %d: want 'Name: value'", flag, i+1, len(items))
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// FileOptions returns the file source's options for the configuration on
// the node, and whether the file source is on (a static pod path is
// configured). The caller sets Updates.
func (c Config) FileOptions(node nodeenv.Env, dec staticpod.Decoder) (FileOptions, bool) {
	if c.StaticPodPath == "" {
		return FileOptions{}, false
	}
	return FileOptions{
		Path: c.StaticPodPath, HostRoot: node.HostRoot, NodeName: node.NodeName,
		Decoder: dec, Period: c.FileCheckFrequency,
	}, true
}

// URLOptions returns the URL source's options for the configuration on the
// node, and whether the URL source is on (a static pod URL is configured).
// The caller sets Updates.
func (c Config) URLOptions(node nodeenv.Env, dec staticpod.Decoder) (URLOptions, bool) {
	if c.StaticPodURL == "" {
		return URLOptions{}, false
	}
	return URLOptions{
		URL: c.StaticPodURL, Header: c.StaticPodURLHeader, NodeName: node.NodeName,
		Decoder: dec, Period: c.HTTPCheckFrequency,
	}, true
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
