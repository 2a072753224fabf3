package admission

import (
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	"k8s.io/kubernetes/pkg/features"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	admit "github.com/podsrc/podsrc/pkg/admission"
)

// podClass answers podsrc's eviction handler as v1.37's eviction manager
// judges a pod: critical (static, mirror or of a system-critical
// priority), its QoS class, and whether it tolerates the memory-pressure
// taint.
func podClass() admit.PodClass {
	memoryPressure := &v1.Taint{Key: v1.TaintNodeMemoryPressure, Effect: v1.TaintEffectNoSchedule}
	return admit.PodClass{
		IsCritical: kubetypes.IsCriticalPod,
		QOS:        v1qos.GetPodQOS,
		ToleratesMemoryPressure: func(p *v1.Pod) bool {
			return corev1helpers.TolerationsTolerateTaint(klog.Background(), p.Spec.Tolerations, memoryPressure,
				utilfeature.DefaultFeatureGate.Enabled(features.TaintTolerationComparisonOperators))
		},
	}
}
