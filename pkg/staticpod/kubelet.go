package staticpod

import v1 "k8s.io/api/core/v1"

// Kubelet is the part of static pod decoding that only one kubelet minor's
// own code can do: decoding into its internal Pod type, its defaults and UID
// hash, its validation and its API-reference rules. pkg/staticpod/internalpod
// implements it, built against each minor's own code; NewDecoder adds what
// every minor does the same way at the file and URL level.
type Kubelet interface {
	// DecodePod decodes one pod from JSON and makes it the static pod the
	// kubelet would. parsed is false when the data is no pod at all; a
	// parsed pod can still be rejected by err. warnings are what the
	// minor's kubelet logs about an accepted pod without rejecting it
	// (none for most minors), one message each.
	DecodePod(json []byte, loc Location) (parsed bool, pod *v1.Pod, warnings []string, err error)
	// DecodePodList decodes a pod list from a URL body; one invalid item
	// rejects the whole list.
	DecodePodList(data []byte, loc Location) (parsed bool, pods []*v1.Pod, err error)
	// KubeletVersion is the kubelet version whose code this is.
	KubeletVersion() string
}
