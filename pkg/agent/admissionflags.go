package agent

import (
	"time"

	"github.com/spf13/pflag"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/nodeenv"
)

// The agent's flags for the kubelet settings its admit handlers judge by,
// named as the kubelet's own.
const (
	flagAllowedUnsafeSysctls  = "allowed-unsafe-sysctls"
	flagCPUManagerPolicy      = "cpu-manager-policy"
	flagMemoryManagerPolicy   = "memory-manager-policy"
	flagTopologyManagerPolicy = "topology-manager-policy"
	flagShutdownGracePeriod   = "shutdown-grace-period"
)

// AdmissionFlags are the kubelet settings its admit handlers judge by.
// Each one given stands for the kubelet configuration's, so that an agent
// without the kubelet's file (kubectl podsrc deploy passes them all, from
// the node's /configz) judges pods as the node's kubelet does.
type AdmissionFlags struct {
	AllowedUnsafeSysctls  []string
	CPUManagerPolicy      string
	MemoryManagerPolicy   string
	TopologyManagerPolicy string
	// ShutdownGracePeriod is the kubelet's shutdownGracePeriod, or the
	// longest of its shutdownGracePeriodByPodPriority: non-zero turns its
	// node shutdown manager on.
	ShutdownGracePeriod time.Duration
}

// AddFlags registers the flags on fs.
func (f *AdmissionFlags) AddFlags(fs *pflag.FlagSet) {
	const instead = " Given, it stands for the kubelet configuration's; with neither, "
	fs.StringSliceVar(&f.AllowedUnsafeSysctls, flagAllowedUnsafeSysctls, f.AllowedUnsafeSysctls, "The kubelet's allowedUnsafeSysctls, which its sysctl admit handler allows."+instead+"none is allowed.")
	fs.StringVar(&f.CPUManagerPolicy, flagCPUManagerPolicy, f.CPUManagerPolicy, "The kubelet's cpuManagerPolicy: other than none, the CPU manager admits the pods it allocates to from its checkpoint, which podsrc does not read, so their verdict is unknown."+instead+"it is not known.")
	fs.StringVar(&f.MemoryManagerPolicy, flagMemoryManagerPolicy, f.MemoryManagerPolicy, "The kubelet's memoryManagerPolicy, as --"+flagCPUManagerPolicy+" for the memory manager."+instead+"it is not known.")
	fs.StringVar(&f.TopologyManagerPolicy, flagTopologyManagerPolicy, f.TopologyManagerPolicy, "The kubelet's topologyManagerPolicy, as --"+flagCPUManagerPolicy+" for the topology manager."+instead+"it is not known.")
	fs.DurationVar(&f.ShutdownGracePeriod, flagShutdownGracePeriod, f.ShutdownGracePeriod, "The kubelet's shutdownGracePeriod (or the longest of its shutdownGracePeriodByPodPriority): non-zero, its node shutdown manager refuses pods while the node shuts down, which podsrc sees only as a Node that is not Ready."+instead+"it is not known.")
}

// kubeletAdmission is the kubelet's admission settings as the agent knows
// them.
type kubeletAdmission struct {
	AdmissionFlags
	// Known is false when a setting other than the sysctls is neither in
	// a kubelet configuration nor given as a flag.
	Known bool
}

// Resolve returns the settings of kc (nil when no kubelet configuration
// was read), each replaced by its flag when that was given on fs.
func (f *AdmissionFlags) Resolve(fs *pflag.FlagSet, kc *kubeletv1beta1.KubeletConfiguration) kubeletAdmission {
	r := kubeletAdmission{Known: kc != nil}
	if kc != nil {
		r.AllowedUnsafeSysctls = kc.AllowedUnsafeSysctls
		r.CPUManagerPolicy, r.MemoryManagerPolicy, r.TopologyManagerPolicy = kc.CPUManagerPolicy, kc.MemoryManagerPolicy, kc.TopologyManagerPolicy
		r.ShutdownGracePeriod = nodeenv.ShutdownGracePeriod(kc)
	}
	changed := func(name string) bool { return fs != nil && fs.Changed(name) }
	if changed(flagAllowedUnsafeSysctls) {
		r.AllowedUnsafeSysctls = f.AllowedUnsafeSysctls
	}
	given := 0
	for _, s := range []struct {
		flag string
		set  func()
	}{
		{flagCPUManagerPolicy, func() { r.CPUManagerPolicy = f.CPUManagerPolicy }},
		{flagMemoryManagerPolicy, func() { r.MemoryManagerPolicy = f.MemoryManagerPolicy }},
		{flagTopologyManagerPolicy, func() { r.TopologyManagerPolicy = f.TopologyManagerPolicy }},
		{flagShutdownGracePeriod, func() { r.ShutdownGracePeriod = f.ShutdownGracePeriod }},
	} {
		if changed(s.flag) {
			s.set()
			given++
		}
	}
	if given == 4 {
		r.Known = true
	}
	return r
}
