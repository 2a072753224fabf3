package merge

import v1 "k8s.io/api/core/v1"

// Annotation keys the kubelet manages on the pods it merges.
const (
	// ConfigSourceAnnotation names the source a pod came from.
	ConfigSourceAnnotation = "kubernetes.io/config.source"
	// ConfigSeenAnnotation holds the time the merge first saw a pod.
	ConfigSeenAnnotation = "kubernetes.io/config.seen"
	// ConfigMirrorAnnotation marks a mirror pod with its static pod's hash.
	ConfigMirrorAnnotation = v1.MirrorPodAnnotationKey
	// ConfigHashAnnotation holds a static pod's hash, which is also its UID.
	ConfigHashAnnotation = "kubernetes.io/config.hash"
)

// SeenTimeLayout is the layout of the config.seen annotation's value.
const SeenTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// localAnnotations are the keys the kubelet owns: a source changing them is
// not a change of the pod, and an update keeps the stored values.
var localAnnotations = [...]string{ConfigSourceAnnotation, ConfigMirrorAnnotation, ConfigSeenAnnotation}

// isLocalAnnotation reports whether key is one of localAnnotations.
func isLocalAnnotation(key string) bool {
	for _, k := range localAnnotations {
		if key == k {
			return true
		}
	}
	return false
}

// annotationsEqual reports whether two annotation maps hold the same entries
// once the kubelet-local keys are left out.
func annotationsEqual(stored, incoming map[string]string) bool {
	for k, v := range incoming {
		if isLocalAnnotation(k) {
			continue
		}
		if sv, ok := stored[k]; !ok || sv != v {
			return false
		}
	}
	for k := range stored {
		if isLocalAnnotation(k) {
			continue
		}
		if _, ok := incoming[k]; !ok {
			return false
		}
	}
	return true
}

// mergedAnnotations returns the incoming annotations with the stored values
// of the kubelet-local keys laid over them.
func mergedAnnotations(stored, incoming map[string]string) map[string]string {
	out := make(map[string]string, len(incoming)+len(localAnnotations))
	for k, v := range incoming {
		out[k] = v
	}
	for _, k := range localAnnotations {
		if v, ok := stored[k]; ok {
			out[k] = v
		}
	}
	return out
}

// withLocalAnnotations returns a new pod's annotations: the incoming ones
// with the source and the first-seen time set, as the kubelet sets them.
func withLocalAnnotations(incoming map[string]string, source, seenAt string) map[string]string {
	out := make(map[string]string, len(incoming)+2)
	for k, v := range incoming {
		out[k] = v
	}
	out[ConfigSourceAnnotation] = source
	out[ConfigSeenAnnotation] = seenAt
	return out
}
