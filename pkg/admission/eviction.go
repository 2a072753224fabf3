package admission

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// EvictedReason is the reason the kubelet's eviction manager gives a pod
// it refuses under node pressure (eviction.Reason).
const EvictedReason = "Evicted"

// pressureConditions are the Node conditions the kubelet's eviction
// manager sets, in the order the kubelet's node status setters add them.
var pressureConditions = []v1.NodeConditionType{v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure}

// PodClass is what the eviction handler asks a kubelet minor about a
// pod: whether it is critical (kubelettypes.IsCriticalPod), its QoS
// class (qos.GetPodQOS), and whether its tolerations tolerate the
// memory-pressure taint (corev1helpers.TolerationsTolerateTaint with the
// NoSchedule taint node.kubernetes.io/memory-pressure), each as that
// minor's kubelet answers.
type PodClass struct {
	IsCritical              func(*v1.Pod) bool
	QOS                     func(*v1.Pod) v1.PodQOSClass
	ToleratesMemoryPressure func(*v1.Pod) bool
}

// Pressure returns the pressure conditions that are True on node, in the
// order the kubelet sets them; none for a nil node.
func Pressure(node *v1.Node) []v1.NodeConditionType {
	if node == nil {
		return nil
	}
	var out []v1.NodeConditionType
	for _, t := range pressureConditions {
		for _, c := range node.Status.Conditions {
			if c.Type == t && c.Status == v1.ConditionTrue {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// EvictionAdmitFunc is podsrc's eviction admit handler: it judges a pod as the
// kubelet's eviction manager does, from the pressure the Node's
// conditions show rather than from the manager's own observations, which
// the kubelet publishes as those conditions. No pressure admits every
// pod, and so do critical pods; memory pressure alone admits all but
// BestEffort pods that do not tolerate the memory-pressure taint; any
// other pressure refuses every other pod. The message names the
// conditions as the kubelet formats them; where several are True, the
// kubelet lists them in an order of its own (a map's), which podsrc
// cannot know.
func EvictionAdmitFunc(c PodClass) AdmitFunc {
	return func(in AdmitAttributes) (bool, string, string) {
		pressure := Pressure(in.Node)
		if len(pressure) == 0 || c.IsCritical(in.Pod) {
			return true, "", ""
		}
		if len(pressure) == 1 && pressure[0] == v1.NodeMemoryPressure &&
			(c.QOS(in.Pod) != v1.PodQOSBestEffort || c.ToleratesMemoryPressure(in.Pod)) {
			return true, "", ""
		}
		return false, EvictedReason, fmt.Sprintf("The node had condition: %v. ", pressure)
	}
}
