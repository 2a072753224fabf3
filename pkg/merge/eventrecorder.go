package merge

import "k8s.io/apimachinery/pkg/runtime"

// EventRecorder receives the Kubernetes events the kubelet records while it
// merges (a pod dropped for a duplicate name). client-go's
// record.EventRecorder satisfies it; the merge needs nothing more, and
// depending on no more keeps client-go's event machinery out of the agent.
type EventRecorder interface {
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any)
}
