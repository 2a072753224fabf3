package nodeenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// Flags are the agent's command-line settings for the node it runs on: the
// kubelet's configuration file, the node's name and where the host's file
// system is mounted.
type Flags struct {
	// KubeletConfig is the kubelet's configuration file, a host path.
	KubeletConfig string
	// HostRoot is where the host's file system is mounted.
	HostRoot string
	// NodeName is the kubelet's node name.
	NodeName string

	// Getenv and Hostname default to os.Getenv and os.Hostname.
	Getenv   func(string) string
	Hostname func() (string, error)
}

// Flag names.
const (
	FlagKubeletConfig = "kubelet-config"
	FlagHostRoot      = "host-root"
	FlagNodeName      = "node-name"
)

// AddFlags registers the flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.KubeletConfig, FlagKubeletConfig, "", "The kubelet's configuration file (a host path, read under --host-root); staticPodPath, staticPodURL, staticPodURLHeader, fileCheckFrequency and httpCheckFrequency come from it unless overridden.")
	fs.StringVar(&f.HostRoot, FlagHostRoot, "", "Where the host's file system is mounted (for example /host in a DaemonSet); host paths are read under it but hashed and reported as they are.")
	fs.StringVar(&f.NodeName, FlagNodeName, "", "The kubelet's node name, exactly as the kubelet has it (default: $NODE_NAME, then the lower-cased hostname).")
}

// Env is the node's environment as the agent sees it.
type Env struct {
	// NodeName is the kubelet's node name, as the kubelet has it.
	NodeName string
	// HostRoot is where the host's file system is mounted ("" or "/" when
	// podsrc runs on the host); see ReadPath.
	HostRoot string
	// Kubelet is the kubelet's configuration file as Resolve read it (a
	// relative staticPodPath resolved as the kubelet does), nil without
	// one, for the sources' settings and the runtime endpoint, so that the
	// file is read once.
	Kubelet *kubeletv1beta1.KubeletConfiguration
}

// Resolve reads the kubelet's configuration file, if any, and determines the
// node name: the flag, then $NODE_NAME, then the lower-cased hostname.
func (f *Flags) Resolve() (Env, error) {
	getenv, hostname := f.Getenv, f.Hostname
	if getenv == nil {
		getenv = os.Getenv
	}
	if hostname == nil {
		hostname = os.Hostname
	}
	env := Env{HostRoot: f.HostRoot}
	if f.KubeletConfig != "" {
		kc, err := LoadKubeletConfig(ReadPath(f.HostRoot, f.KubeletConfig))
		if err != nil {
			return Env{}, err
		}
		if kc.StaticPodPath != "" && !filepath.IsAbs(kc.StaticPodPath) {
			// The kubelet resolves it against the file's directory.
			kc.StaticPodPath = filepath.Join(filepath.Dir(f.KubeletConfig), kc.StaticPodPath)
		}
		env.Kubelet = kc
	}

	switch {
	case f.NodeName != "":
		env.NodeName = f.NodeName
	case getenv("NODE_NAME") != "":
		env.NodeName = getenv("NODE_NAME")
	default:
		h, err := hostname()
		if err != nil {
			return Env{}, fmt.Errorf("no --%s, no NODE_NAME and no hostname: %w", FlagNodeName, err)
		}
		// The kubelet lower-cases the hostname it defaults its node name to.
		env.NodeName = strings.ToLower(strings.TrimSpace(h))
		if env.NodeName == "" {
			return Env{}, fmt.Errorf("no --%s, no NODE_NAME and a blank hostname: give --%s", FlagNodeName, FlagNodeName)
		}
	}
	return env, nil
}
