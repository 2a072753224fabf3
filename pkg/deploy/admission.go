package deploy

import (
	"slices"
	"strings"
	"time"

	kubeletconfig "k8s.io/kubelet/config/v1beta1"

	"github.com/podsrc/podsrc/pkg/nodeenv"
)

// KubeletAdmission is what a kubelet's admit handlers judge by, from its
// configuration: the agent gets it as flags, so that its verdicts are
// that kubelet's without reading the kubelet's file.
type KubeletAdmission struct {
	AllowedUnsafeSysctls  []string
	CPUManagerPolicy      string
	MemoryManagerPolicy   string
	TopologyManagerPolicy string
	// ShutdownGracePeriod is the longest of the kubelet's shutdown grace
	// periods: non-zero when its node shutdown manager is on.
	ShutdownGracePeriod time.Duration
}

// kubeletAdmission takes the admission settings of kc.
func kubeletAdmission(kc *kubeletconfig.KubeletConfiguration) *KubeletAdmission {
	sysctls := slices.Clone(kc.AllowedUnsafeSysctls)
	slices.Sort(sysctls)
	return &KubeletAdmission{
		AllowedUnsafeSysctls:  sysctls,
		CPUManagerPolicy:      kc.CPUManagerPolicy,
		MemoryManagerPolicy:   kc.MemoryManagerPolicy,
		TopologyManagerPolicy: kc.TopologyManagerPolicy,
		ShutdownGracePeriod:   nodeenv.ShutdownGracePeriod(kc),
	}
}

// admissionFlags are the agent's flags for the kubelet's admission
// settings; all of them are given, so that the agent knows them all.
var admissionFlags = []string{"--allowed-unsafe-sysctls", "--cpu-manager-policy", "--memory-manager-policy", "--topology-manager-policy", "--shutdown-grace-period"}

// args are the agent's flags for a, in admissionFlags' order.
func (a KubeletAdmission) args() []string {
	values := []string{strings.Join(a.AllowedUnsafeSysctls, ","), a.CPUManagerPolicy, a.MemoryManagerPolicy, a.TopologyManagerPolicy, a.ShutdownGracePeriod.String()}
	args := make([]string, len(admissionFlags))
	for i, f := range admissionFlags {
		args[i] = f + "=" + values[i]
	}
	return args
}
