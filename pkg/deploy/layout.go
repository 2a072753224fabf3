package deploy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	kubeletconfig "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/printers"
	"github.com/podsrc/podsrc/pkg/redact"
)

// Layout is what the agent must know of a node to see what its kubelet sees:
// the kubelet settings that name host paths or URLs, and their periods.
type Layout struct {
	StaticPodPath      string
	FileCheckFrequency time.Duration
	StaticPodURL       string
	StaticPodURLHeader map[string][]string
	HTTPCheckFrequency time.Duration
	// RuntimeEndpoint is the CRI endpoint, unix:///path.
	RuntimeEndpoint string
	// FeatureGates are the kubelet's, as its /configz reports them (its
	// --feature-gates merged into its configuration's): the agent's
	// decoder follows them.
	FeatureGates map[string]bool
	// Admission is what the kubelet's admit handlers judge by; nil when
	// its configuration was not read (an assumed layout), and the agent
	// then says so of the verdicts it cannot give.
	Admission *KubeletAdmission
}

// The kubelet's defaults, for settings a configuration leaves out.
const (
	defaultCheckFrequency  = 20 * time.Second
	defaultRuntimeEndpoint = "unix:///run/containerd/containerd.sock"
)

// LayoutFromKubelet takes a node's layout from its kubelet's configuration,
// with the kubelet's defaults for what it leaves out.
func LayoutFromKubelet(kc *kubeletconfig.KubeletConfiguration) Layout {
	l := Layout{
		StaticPodPath:      kc.StaticPodPath,
		FileCheckFrequency: kc.FileCheckFrequency.Duration,
		StaticPodURL:       kc.StaticPodURL,
		StaticPodURLHeader: kc.StaticPodURLHeader,
		HTTPCheckFrequency: kc.HTTPCheckFrequency.Duration,
		RuntimeEndpoint:    kc.ContainerRuntimeEndpoint,
		FeatureGates:       kc.FeatureGates,
		Admission:          kubeletAdmission(kc),
	}
	if l.FileCheckFrequency == 0 {
		l.FileCheckFrequency = defaultCheckFrequency
	}
	if l.HTTPCheckFrequency == 0 {
		l.HTTPCheckFrequency = defaultCheckFrequency
	}
	switch {
	case l.RuntimeEndpoint == "":
		l.RuntimeEndpoint = defaultRuntimeEndpoint
	case strings.HasPrefix(l.RuntimeEndpoint, "/"):
		// The kubelet takes a bare path as a unix socket too.
		l.RuntimeEndpoint = "unix://" + l.RuntimeEndpoint
	}
	return l
}

// Overrides are settings the caller gives for every node, found or assumed.
type Overrides struct {
	StaticPodPath   *string
	RuntimeEndpoint *string
	// AllowHostPaths are host paths (and what lies under them) a layout may
	// mount besides the kubelet locations; the paths of the overrides are
	// allowed too, being the caller's.
	AllowHostPaths []string
}

// allowedHostPaths are the host paths the caller allows.
func (o Overrides) allowedHostPaths() []string {
	allowed := slices.Clone(o.AllowHostPaths)
	for _, hp := range o.Apply(Layout{}).hostPaths() {
		allowed = append(allowed, hp.path)
	}
	return allowed
}

// Apply returns l with the overrides set.
func (o Overrides) Apply(l Layout) Layout {
	if o.StaticPodPath != nil {
		l.StaticPodPath = *o.StaticPodPath
	}
	if o.RuntimeEndpoint != nil {
		l.RuntimeEndpoint = *o.RuntimeEndpoint
	}
	return l
}

// Args are the agent's flags for the layout, in a fixed order. Sources the
// node does not have get no flags (the agent's defaults leave them off).
// The static pod URL and its headers, which may hold credentials, are not
// among them: the agent reads them from the files of the layout's Secret
// (urlSecretData), mounted at urlSecretDir.
func (l Layout) Args() []string {
	var args []string
	if l.StaticPodPath != "" {
		args = append(args, "--static-pod-path="+l.StaticPodPath, "--file-check-frequency="+l.FileCheckFrequency.String())
	}
	if l.StaticPodURL != "" {
		args = append(args, "--static-pod-url-file="+path.Join(urlSecretDir, urlSecretKey))
		if len(l.StaticPodURLHeader) > 0 {
			args = append(args, "--static-pod-url-header-file="+path.Join(urlSecretDir, headerSecretKey))
		}
		args = append(args, "--http-check-frequency="+l.HTTPCheckFrequency.String())
	}
	if len(l.FeatureGates) > 0 {
		gates := make([]string, 0, len(l.FeatureGates))
		for name, on := range l.FeatureGates {
			gates = append(gates, fmt.Sprintf("%s=%t", name, on))
		}
		sort.Strings(gates)
		args = append(args, "--feature-gates="+strings.Join(gates, ","))
	}
	if l.Admission != nil {
		args = append(args, l.Admission.args()...)
	}
	// Always named: without it and without a kubelet configuration the
	// agent's PLEG is off, which must be what the node says, not an accident.
	args = append(args, "--runtime-endpoint="+l.RuntimeEndpoint)
	return args
}

// headerLines are the static pod URL's headers, one 'Name: value' a line,
// by name; with mask, each value is redact.Masked.
func (l Layout) headerLines(mask bool) []string {
	names := make([]string, 0, len(l.StaticPodURLHeader))
	for name := range l.StaticPodURLHeader {
		names = append(names, name)
	}
	sort.Strings(names)
	var lines []string
	for _, name := range names {
		for _, v := range l.StaticPodURLHeader[name] {
			if mask {
				v = redact.Masked
			}
			lines = append(lines, name+": "+v)
		}
	}
	return lines
}

// identity tells layouts apart, credentials included; it is never shown.
func (l Layout) identity() string {
	return strings.Join(append(l.Args(), l.StaticPodURL, strings.Join(l.headerLines(false), "\n")), "\n")
}

// layoutFlags are the agent's flags a Layout sets; the template's own
// values of them are replaced. --kubelet-config is among them: with every
// setting given as a flag, the agent need not read the kubelet's file.
var layoutFlags = append([]string{"--static-pod-path", "--file-check-frequency", "--static-pod-url", "--static-pod-url-header", "--static-pod-url-file", "--static-pod-url-header-file", "--http-check-frequency", "--runtime-endpoint", "--feature-gates", "--kubelet-config"}, admissionFlags...)

// isLayoutFlag reports whether arg sets one of layoutFlags.
func isLayoutFlag(arg string) bool {
	name, _, _ := strings.Cut(arg, "=")
	for _, f := range layoutFlags {
		if name == f {
			return true
		}
	}
	return false
}

// SocketPath is the CRI socket's host path, or "" without a runtime.
func (l Layout) SocketPath() string {
	return strings.TrimPrefix(l.RuntimeEndpoint, "unix://")
}

// staticPodPathIsFile reports whether the static pod path names one file
// rather than a directory (the kubelet takes both); configz does not say,
// so a manifest's extension decides.
func (l Layout) staticPodPathIsFile() bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if strings.HasSuffix(l.StaticPodPath, ext) {
			return true
		}
	}
	return false
}

// Hash is a short, stable name for the layout: the first 8 hex digits of
// the SHA-256 of its agent flags, its static pod URL and its headers'
// names, with credentials masked, so that the name tells nothing of them.
// Layouts that differ in credentials only share it.
func (l Layout) Hash() string {
	parts := append(l.Args(), redact.MaskURL(l.StaticPodURL), strings.Join(l.headerLines(true), "\n"))
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])[:8]
}

// String describes the layout in one line, for messages.
func (l Layout) String() string {
	var parts []string
	if l.StaticPodPath != "" {
		parts = append(parts, "static pods "+l.StaticPodPath)
	}
	if l.StaticPodURL != "" {
		parts = append(parts, "static pod URL "+redact.MaskURL(l.StaticPodURL))
	}
	if l.RuntimeEndpoint != "" {
		parts = append(parts, "CRI "+l.RuntimeEndpoint)
	}
	if len(parts) == 0 {
		return "no static pods, no runtime"
	}
	return strings.Join(parts, ", ")
}

// validate refuses layouts the agent could not run with.
func (l Layout) validate() error {
	if l.RuntimeEndpoint != "" && !strings.HasPrefix(l.RuntimeEndpoint, "unix:///") {
		return fmt.Errorf("runtime endpoint %q: the agent reaches the runtime through a unix socket only (unix:///path)", l.RuntimeEndpoint)
	}
	if l.StaticPodPath != "" && !strings.HasPrefix(l.StaticPodPath, "/") {
		return fmt.Errorf("static pod path %q is not an absolute path", l.StaticPodPath)
	}
	for _, hp := range l.hostPaths() {
		if printers.EscapeControls(hp.path) != hp.path {
			return fmt.Errorf("%s %q has control characters", hp.what, hp.path)
		}
	}
	return nil
}
