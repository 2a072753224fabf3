package merge

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

// EventReasonFailedValidation is the reason of the event recorded for a pod
// dropped because another pod of the same update has its full name.
const EventReasonFailedValidation = "FailedValidation"

// fullNames tracks the full names (name_namespace, as the kubelet forms
// them) seen in one update. Names without an underscore, which is every
// valid pod name, are keyed without building the joined string; a joined
// name of such a pod has exactly one underscore, so it can never collide with
// the joined name of a pod that has one of its own, which is kept apart.
type fullNames struct {
	plain  map[nameKey]struct{}
	joined map[string]struct{}
}

type nameKey struct{ name, namespace string }

// reset forgets every name while keeping the maps' storage.
func (f *fullNames) reset() {
	if f.plain == nil {
		f.plain = make(map[nameKey]struct{})
		f.joined = make(map[string]struct{})
		return
	}
	clear(f.plain)
	clear(f.joined)
}

// insert records the pod's full name and reports false when it was there.
func (f *fullNames) insert(pod *v1.Pod) bool {
	if strings.IndexByte(pod.Name, '_') < 0 && strings.IndexByte(pod.Namespace, '_') < 0 {
		k := nameKey{pod.Name, pod.Namespace}
		if _, dup := f.plain[k]; dup {
			return false
		}
		f.plain[k] = struct{}{}
		return true
	}
	k := pod.Name + "_" + pod.Namespace
	if _, dup := f.joined[k]; dup {
		return false
	}
	f.joined[k] = struct{}{}
	return true
}

// podDescription formats a pod the way the kubelet names it in events.
func podDescription(pod *v1.Pod) string {
	return pod.Name + "_" + pod.Namespace + "(" + string(pod.UID) + ")"
}
