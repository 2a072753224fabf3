package admission

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Unseen is what the kubelet's configuration and host say of its admit
// handlers that judge from node-private state: the resource managers'
// allocations (their checkpoints under the kubelet's root), AppArmor on
// the host, and a node shutdown under way.
type Unseen struct {
	// NoKubeletConfig is true when the kubelet's configuration was not
	// read: its resource managers' policies and its node shutdown manager
	// are then not known.
	NoKubeletConfig bool
	// CPUManagerPolicy, MemoryManagerPolicy and TopologyManagerPolicy are
	// the kubelet's cpuManagerPolicy, memoryManagerPolicy and
	// topologyManagerPolicy; empty is the kubelet's default, none.
	CPUManagerPolicy      string
	MemoryManagerPolicy   string
	TopologyManagerPolicy string
	// AppArmorEnabled is whether the host has AppArmor enabled; nil when
	// that could not be read.
	AppArmorEnabled *bool
	// GracefulShutdown is whether the kubelet's node shutdown manager is
	// on (shutdownGracePeriod or shutdownGracePeriodByPodPriority set).
	GracefulShutdown bool
}

// appArmorAnnotationPrefix starts the beta annotations that ask for a
// container's AppArmor profile, which the kubelet still honours.
const appArmorAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/"

// WithUnseen returns h, whose verdict on a pod it admits says, in
// AdmitResult.Unknown, which of the kubelet's handlers podsrc cannot judge the
// pod for: a resource manager of a policy other than none for a pod that
// policy allocates to, AppArmor for a pod that asks for a profile on a
// host whose AppArmor is not seen enabled, the node shutdown manager
// while the Node is not Ready; without the kubelet's configuration, the
// resource managers for every pod they may allocate to. qos is the minor's kubelet's QoS class.
func WithUnseen(h AdmitHandler, u Unseen, qos func(*v1.Pod) v1.PodQOSClass) AdmitHandler {
	return unseen{h: h, u: u, qos: qos}
}

type unseen struct {
	h   AdmitHandler
	u   Unseen
	qos func(*v1.Pod) v1.PodQOSClass
}

func (s unseen) Admit(in AdmitAttributes) AdmitResult {
	v := s.h.Admit(in)
	if v.Admit {
		v.Unknown = strings.Join(s.blind(in), "; ")
	}
	return v
}

// blind lists what the kubelet judges in from that podsrc cannot see.
func (s unseen) blind(in AdmitAttributes) []string {
	var out []string
	guaranteed := s.qos(in.Pod) == v1.PodQOSGuaranteed
	switch {
	case s.u.NoKubeletConfig && (guaranteed || extendedResources(in.Pod)):
		out = append(out, "the kubelet's configuration was not read, so whether its CPU, memory and topology managers allocate to the pod from their checkpoints is not known")
	case s.u.NoKubeletConfig:
	default:
		if on(s.u.CPUManagerPolicy, "none") && guaranteed && integerCPU(in.Pod) {
			out = append(out, "the CPU manager (policy "+s.u.CPUManagerPolicy+") allocates exclusive CPUs from its checkpoint, which podsrc does not read")
		}
		if on(s.u.MemoryManagerPolicy, "None") && guaranteed {
			out = append(out, "the memory manager (policy "+s.u.MemoryManagerPolicy+") allocates NUMA memory from its checkpoint, which podsrc does not read")
		}
		if on(s.u.TopologyManagerPolicy, "none") && (guaranteed || extendedResources(in.Pod)) {
			out = append(out, "the topology manager (policy "+s.u.TopologyManagerPolicy+") aligns the resource managers' NUMA allocations, which podsrc does not read")
		}
	}
	switch {
	case !asksAppArmor(in.Pod) || (s.u.AppArmorEnabled != nil && *s.u.AppArmorEnabled):
	case s.u.AppArmorEnabled == nil:
		out = append(out, "the pod asks for an AppArmor profile and podsrc could not read whether the host has AppArmor enabled")
	default:
		out = append(out, "the pod asks for an AppArmor profile and the host has AppArmor disabled; podsrc does not reproduce the kubelet's AppArmor handler")
	}
	if (s.u.GracefulShutdown || s.u.NoKubeletConfig) && !ready(in.Node) {
		out = append(out, "the node shutdown manager refuses every pod while a shutdown is under way, and the Node is not Ready")
	}
	return out
}

// on reports whether a resource manager's policy is set to other than its
// default none.
func on(policy, none string) bool { return policy != "" && policy != none }

// integerCPU reports whether a container asks for whole CPUs, which the
// static CPU policy pins for a Guaranteed pod.
func integerCPU(p *v1.Pod) bool {
	for _, c := range allContainers(p) {
		if q, ok := c.Resources.Requests[v1.ResourceCPU]; ok && q.MilliValue()%1000 == 0 && !q.IsZero() {
			return true
		}
	}
	return false
}

// extendedResources reports whether a container asks for an extended
// resource (a device plugin's, which the device manager allocates): one
// named in a domain other than kubernetes.io.
func extendedResources(p *v1.Pod) bool {
	for _, c := range allContainers(p) {
		for name := range c.Resources.Limits {
			if n := string(name); strings.Contains(n, "/") && !strings.Contains(n, v1.ResourceDefaultNamespacePrefix) {
				return true
			}
		}
	}
	return false
}

// asksAppArmor reports whether the pod asks for an AppArmor profile other
// than unconfined, by field or annotation.
func asksAppArmor(p *v1.Pod) bool {
	confined := func(prof *v1.AppArmorProfile) bool {
		return prof != nil && prof.Type != v1.AppArmorProfileTypeUnconfined
	}
	if sc := p.Spec.SecurityContext; sc != nil && confined(sc.AppArmorProfile) {
		return true
	}
	for _, c := range allContainers(p) {
		if c.SecurityContext != nil && confined(c.SecurityContext.AppArmorProfile) {
			return true
		}
	}
	for k, v := range p.Annotations {
		if strings.HasPrefix(k, appArmorAnnotationPrefix) && v != "unconfined" {
			return true
		}
	}
	return false
}

// ready reports whether the Node's Ready condition is True.
func ready(n *v1.Node) bool {
	if n == nil {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return false
}

func allContainers(p *v1.Pod) []v1.Container {
	return append(append([]v1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...)
}
