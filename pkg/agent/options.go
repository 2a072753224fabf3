package agent

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/source"
)

// DefaultRuntimeEndpoint is the kubelet's default containerRuntimeEndpoint.
const DefaultRuntimeEndpoint = "unix:///run/containerd/containerd.sock"

// DefaultEventBuffer is how many events the agent keeps for resuming streams.
const DefaultEventBuffer = eventring.DefaultCapacity

// DefaultHeartbeat is how often an idle event stream gets a heartbeat.
const DefaultHeartbeat = v1alpha1.DefaultHeartbeat

// Options are the agent's command-line flags.
type Options struct {
	Node            nodeenv.Flags
	Sources         source.Flags
	RuntimeEndpoint string
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
	ListenAddress   string
	ProbeAddress    string
	Mode            string
	EventBuffer     int
	Heartbeat       time.Duration
	ExposePodSpecs  bool
	AllowedCIDRs    []string
	EnableProfiling bool
	// ProfilingAddress is where --enable-profiling serves: loopback only.
	ProfilingAddress string
	Limits           serve.Limits
	Admission        AdmissionFlags
	Journal          JournalConfig

	// RelistOnRuntimeEvents relists when the runtime reports a change.
	RelistOnRuntimeEvents bool
	// MaxDeadContainersPerContainer is the kubelet's
	// --maximum-dead-containers-per-container.
	MaxDeadContainersPerContainer int
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		RelistPeriod:    pleg.DefaultRelistPeriod,
		RelistThreshold: pleg.DefaultRelistThreshold,
		ListenAddress:   fmt.Sprintf(":%d", v1alpha1.DefaultAgentPort),
		Mode:            merge.Incremental.String(),
		EventBuffer:     DefaultEventBuffer,
		Heartbeat:       DefaultHeartbeat,

		ProfilingAddress: DefaultProfilingAddress,
		Limits:           serve.DefaultLimits(),
		Journal:          DefaultJournalConfig(),

		// The operator sees a change within milliseconds of the runtime
		// reporting it, not up to a relist period later; each relist
		// computes the kubelet's events (docs/kubelet-differences.md, "When the PLEG relists").
		RelistOnRuntimeEvents: true,

		MaxDeadContainersPerContainer: DefaultMaxDeadContainersPerContainer,
	}
}

// DefaultMaxDeadContainersPerContainer is the kubelet's default
// --maximum-dead-containers-per-container.
const DefaultMaxDeadContainersPerContainer = 1

// AddFlags registers the flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Node.AddFlags(fs)
	o.Sources.AddFlags(fs)
	fs.StringVar(&o.RuntimeEndpoint, "runtime-endpoint", o.RuntimeEndpoint, "The CRI socket the PLEG relists, as unix:///path or /path (a host path, read under --host-root). Default: the kubelet config's containerRuntimeEndpoint (the kubelet's default, "+DefaultRuntimeEndpoint+", when it names none); without --kubelet-config the PLEG is off. Set to \"\" to turn the PLEG off.")
	fs.DurationVar(&o.RelistPeriod, "relist-period", o.RelistPeriod, "The PLEG's relist period.")
	fs.BoolVar(&o.RelistOnRuntimeEvents, "relist-on-runtime-events", o.RelistOnRuntimeEvents, "Also relist as soon as the runtime reports a container change (CRI GetContainerEvents), no sooner than "+pleg.DefaultEventRelistGap.String()+" (or the last relist's duration) after the last relist; the periodic relist stays. Each relist computes the kubelet's events, but the agent sees a change before the kubelet's next relist does. Set to false for the kubelet's relist timing.")
	fs.IntVar(&o.MaxDeadContainersPerContainer, "kubelet-maximum-dead-containers-per-container", o.MaxDeadContainersPerContainer, "The kubelet's --maximum-dead-containers-per-container, a command-line flag its configuration file does not carry: how many exited containers of a name the kubelet keeps (at least one) when a container dies, for the containers a ContainerDied event says it removes.")
	fs.DurationVar(&o.RelistThreshold, "relist-threshold", o.RelistThreshold, "How old the last relist may get before the PLEG is unhealthy, as in the kubelet.")
	fs.StringVar(&o.ListenAddress, "listen-address", o.ListenAddress, "The address the HTTP API listens on. The API server's node proxy cannot reach loopback: listen on the node's address.")
	fs.StringVar(&o.ProbeAddress, "probe-address", o.ProbeAddress, fmt.Sprintf("Also serve /healthz, /livez and /readyz, for the kubelet's probes, on a listener of their own at this address, which no client of the API can fill; every peer may reach it (--allowed-cidrs does not apply). The kubelet probes a hostNetwork pod at the node's address, so listen there (the DaemonSet sets $(NODE_IP):%d), not on loopback. Empty: the probes are served on --listen-address only.", DefaultProbePort))
	fs.StringVar(&o.Mode, "mode", o.Mode, "The merge's notification mode: incremental (today's kubelet), snapshot-and-updates or snapshot.")
	fs.IntVar(&o.EventBuffer, "event-buffer", o.EventBuffer, "How many events are kept for streams that resume with ?since=.")
	fs.DurationVar(&o.Heartbeat, "heartbeat", o.Heartbeat, "How often an idle event stream gets a heartbeat.")
	fs.BoolVar(&o.ExposePodSpecs, "expose-pod-specs", o.ExposePodSpecs, "Serve pods in full (commands, env values, annotations, messages...) instead of the allowlisted projection. Anyone who reaches the port can read them.")
	fs.StringSliceVar(&o.AllowedCIDRs, "allowed-cidrs", o.AllowedCIDRs, "Answer only peers in these CIDRs or at these addresses; empty allows all. The peer is whoever opens the connection: through the API server's node or pod proxy that is the API server (or a konnectivity agent), never the user, so this can keep other hosts and pods out but cannot tell users apart. /healthz, /livez and /readyz answer every peer, for the kubelet's probes from the node's address.")
	fs.BoolVar(&o.EnableProfiling, "enable-profiling", o.EnableProfiling, "Serve Go profiles under /debug/pprof/ on --profiling-address.")
	fs.StringVar(&o.ProfilingAddress, "profiling-address", o.ProfilingAddress, "The loopback address --enable-profiling serves on, apart from the API (reach it with kubectl port-forward); other addresses are refused.")
	o.Limits.AddFlags(fs)
	o.Admission.AddFlags(fs)
	o.Journal.AddFlags(fs)
}

// Config is the agent's validated configuration.
type Config struct {
	Node    nodeenv.Env
	Sources source.Config
	// RuntimeEndpoint is the CRI endpoint as the host names it, and
	// RuntimeSocket where the agent dials it; both empty turn the PLEG off.
	RuntimeEndpoint string
	RuntimeSocket   string
	PLEG            pleg.Options
	ListenAddress   string
	// ProbeAddress is where the probes' own listener listens; empty
	// serves them on ListenAddress only.
	ProbeAddress string
	Mode         merge.Mode
	EventBuffer  int
	// Events, when set, is the ring the agent publishes its events to and
	// serves its streams from, instead of one of EventBuffer events: what
	// else is published to it (a benchmark's events) reaches the streams
	// exactly like the agent's own. With a journal, it continues the
	// journal's numbering, which must then be empty or have been written
	// with the ring's epoch.
	Events          *eventring.Ring
	Heartbeat       time.Duration
	ExposePodSpecs  bool
	AllowedNets     []netip.Prefix
	EnableProfiling bool
	// ProfilingAddress is the loopback address of the profiles.
	ProfilingAddress string
	Limits           serve.Limits
	// Journal is where the agent keeps its events on the node; its Dir
	// empty keeps them in memory only.
	Journal JournalConfig

	// RelistOnRuntimeEvents makes the PLEG follow the runtime's events.
	RelistOnRuntimeEvents bool

	// MaxDeadContainersPerContainer is the kubelet's
	// --maximum-dead-containers-per-container: with the kubelet's floor of
	// one, how many exited containers of a name its container deletor
	// keeps.
	MaxDeadContainersPerContainer int

	// Admission is the kubelet minor's chain of admit handlers, which judge
	// each added pod; nil leaves every verdict unknown.
	Admission admission.AdmitHandler
	// AdmissionSettings are what Admission was built with, recorded with
	// the agent's inputs for a replay; nil records none, and a replay then
	// judges no pod.
	AdmissionSettings *v1alpha1.AdmissionSettings

	// kubeletAdmission is the kubelet's settings its admit handlers judge
	// by: its configuration's, or the flags'.
	kubeletAdmission kubeletAdmission
}

// AdmissionConfig is what the kubelet's admit handlers take from its
// settings (its allowedUnsafeSysctls) and what podsrc cannot judge
// (unseenState).
func (c *Config) AdmissionConfig() admission.Config {
	return admission.Config{
		AllowedUnsafeSysctls: c.kubeletAdmission.AllowedUnsafeSysctls,
		Unseen:               unseenState(c.kubeletAdmission, c.Node.HostRoot),
	}
}

// Complete resolves the flags given on fs, with the kubelet's configuration
// file, into a Config.
func (o *Options) Complete(fs *pflag.FlagSet) (*Config, error) {
	node, err := o.Node.Resolve()
	if err != nil {
		return nil, err
	}
	src, err := o.Sources.Resolve(fs, node.Kubelet)
	if err != nil {
		return nil, err
	}
	c := &Config{
		Node:            node,
		Sources:         src,
		PLEG:            pleg.Options{RelistPeriod: o.RelistPeriod, RelistThreshold: o.RelistThreshold},
		ListenAddress:   o.ListenAddress,
		ProbeAddress:    o.ProbeAddress,
		EventBuffer:     o.EventBuffer,
		Heartbeat:       o.Heartbeat,
		ExposePodSpecs:  o.ExposePodSpecs,
		EnableProfiling: o.EnableProfiling,

		ProfilingAddress: o.ProfilingAddress,
		Limits:           o.Limits,
		Journal:          o.Journal,

		RelistOnRuntimeEvents: o.RelistOnRuntimeEvents,

		MaxDeadContainersPerContainer: o.MaxDeadContainersPerContainer,

		kubeletAdmission: o.Admission.Resolve(fs, node.Kubelet),
	}
	c.RuntimeEndpoint = o.RuntimeEndpoint
	if fs == nil || !fs.Changed("runtime-endpoint") {
		if kc := node.Kubelet; kc != nil {
			c.RuntimeEndpoint = kc.ContainerRuntimeEndpoint
			if c.RuntimeEndpoint == "" {
				// The kubelet's own default when its config names none
				// (kubeadm passes the socket as a flag instead).
				c.RuntimeEndpoint = DefaultRuntimeEndpoint
			}
		}
	}
	if c.RuntimeEndpoint != "" {
		c.RuntimeSocket = nodeenv.ReadPath(node.HostRoot, strings.TrimPrefix(c.RuntimeEndpoint, "unix://"))
	}
	if c.Mode, err = merge.ParseMode(o.Mode); err != nil {
		return nil, fmt.Errorf("--mode: %w", err)
	}
	for _, s := range o.AllowedCIDRs {
		p, err := parseAllowed(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--allowed-cidrs: %q is neither a CIDR nor an IP address: %w", s, err)
		}
		c.AllowedNets = append(c.AllowedNets, p)
	}
	return c, c.Validate()
}

// parseAllowed reads one entry of --allowed-cidrs: a CIDR, or an address,
// which stands for itself alone.
func parseAllowed(s string) (netip.Prefix, error) {
	if ip, err := netip.ParseAddr(s); err == nil {
		ip = ip.Unmap()
		return netip.PrefixFrom(ip, ip.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return p.Masked(), nil
}

// Validate refuses settings the agent cannot run with, naming the flag.
func (c *Config) Validate() error {
	switch {
	case c.PLEG.RelistPeriod <= 0:
		return fmt.Errorf("--relist-period must be positive, not %v", c.PLEG.RelistPeriod)
	case c.PLEG.RelistThreshold <= 0:
		return fmt.Errorf("--relist-threshold must be positive, not %v", c.PLEG.RelistThreshold)
	case c.EventBuffer <= 0:
		return fmt.Errorf("--event-buffer must be positive, not %d", c.EventBuffer)
	case c.Heartbeat <= 0:
		return fmt.Errorf("--heartbeat must be positive, not %v", c.Heartbeat)
	}
	if c.RuntimeEndpoint != "" && !strings.HasPrefix(c.RuntimeEndpoint, "unix://") && !strings.HasPrefix(c.RuntimeEndpoint, "/") {
		return fmt.Errorf("--runtime-endpoint %q: only unix sockets are supported (unix:///path or /path)", c.RuntimeEndpoint)
	}
	if _, _, err := net.SplitHostPort(c.ListenAddress); err != nil {
		return fmt.Errorf("--listen-address %q: %w", c.ListenAddress, err)
	}
	if c.ProbeAddress != "" {
		if _, _, err := net.SplitHostPort(c.ProbeAddress); err != nil {
			return fmt.Errorf("--probe-address %q: %w", c.ProbeAddress, err)
		}
	}
	if c.EnableProfiling {
		if err := checkLoopback(c.ProfilingAddress); err != nil {
			return err
		}
	}
	if err := c.Journal.Validate(); err != nil {
		return err
	}
	return c.Limits.Validate()
}
