package agent

import (
	"os"
	"strings"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/nodeenv"
)

// appArmorEnabledPath is where the kernel says whether AppArmor is
// enabled, as the kubelet's AppArmor validator reads it.
const appArmorEnabledPath = "/sys/module/apparmor/parameters/enabled"

// unseenState is what the kubelet's settings k and the host under
// hostRoot say of the admit handlers that judge from state podsrc does not
// read: the resource managers' policies, the node shutdown manager, and
// whether the host has AppArmor enabled (unknown when that cannot be read;
// no AppArmor module is disabled).
func unseenState(k kubeletAdmission, hostRoot string) admission.Unseen {
	u := admission.Unseen{NoKubeletConfig: !k.Known}
	if k.Known {
		u.CPUManagerPolicy, u.MemoryManagerPolicy, u.TopologyManagerPolicy = k.CPUManagerPolicy, k.MemoryManagerPolicy, k.TopologyManagerPolicy
		u.GracefulShutdown = k.ShutdownGracePeriod > 0
	}
	switch raw, err := os.ReadFile(nodeenv.ReadPath(hostRoot, appArmorEnabledPath)); {
	case err == nil:
		enabled := strings.HasPrefix(string(raw), "Y")
		u.AppArmorEnabled = &enabled
	case os.IsNotExist(err):
		enabled := false
		u.AppArmorEnabled = &enabled
	}
	return u
}
