package admission

import (
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	admit "github.com/podsrc/podsrc/pkg/admission"
)

// podClass answers podsrc's eviction handler as v1.34's eviction manager
// judges a pod: critical (static, mirror or of a system-critical
// priority), its QoS class, and whether it tolerates the memory-pressure
// taint.
func podClass() admit.PodClass {
	memoryPressure := &v1.Taint{Key: v1.TaintNodeMemoryPressure, Effect: v1.TaintEffectNoSchedule}
	return admit.PodClass{
		IsCritical: kubetypes.IsCriticalPod,
		QOS:        v1qos.GetPodQOS,
		ToleratesMemoryPressure: func(p *v1.Pod) bool {
			return corev1helpers.TolerationsTolerateTaint(p.Spec.Tolerations, memoryPressure)
		},
	}
}
