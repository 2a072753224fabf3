package decoder

import (
	"fmt"

	api "k8s.io/kubernetes/pkg/apis/core"
	schedulingapi "k8s.io/kubernetes/pkg/apis/scheduling"
)

// nodeCritical is the priority of the system-node-critical class, the one
// v1.37's kubelet expects of a static pod that has a priority.
const nodeCritical = schedulingapi.SystemCriticalPriority + 1000

// priorityWarning is podsrc's statement of what kubelet v1.37 warns about
// a single static pod's priority, or "" when it warns about nothing: a
// class without a priority, a priority without a class, or a pair other
// than system-node-critical with its priority. It names the pod's priority,
// which the agent serves, never its class, which it does not.
func priorityWarning(pod *api.Pod) string {
	prio, class := pod.Spec.Priority, pod.Spec.PriorityClassName
	switch {
	case prio == nil && class == "":
		return ""
	case prio == nil:
		return "kubelet v1.37 warns: a priorityClassName without a priority: the kubelet ignores the class, and the mirror pod may fail to be created"
	case class == "":
		return fmt.Sprintf("kubelet v1.37 warns: priority %d without a priorityClassName: the mirror pod may fail to be created unless the default priority class has that priority", *prio)
	case *prio != nodeCritical || class != schedulingapi.SystemNodeCritical:
		return fmt.Sprintf("kubelet v1.37 warns: priority %d with a priorityClassName other than %d with %s: evicting the mirror pod may be tried to no effect", *prio, nodeCritical, schedulingapi.SystemNodeCritical)
	}
	return ""
}
