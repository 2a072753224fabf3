package staticpod

import "time"

// MaxManifestBytes is the kubelet's cap on a manifest file or URL body. A
// manifest of this size or larger is rejected (the kubelet's limited read
// reports the limit as reached when the reader is exhausted at the cap).
const MaxManifestBytes = 10 << 20

// RejectedFile is a manifest file that contributes no pod.
type RejectedFile struct {
	// Path is the file's path on the host (the path the kubelet hashes).
	Path string
	// Error is the reason, as the kubelet reports it without the
	// manifest's content.
	Error string
	// Unredacted is the kubelet's own message, content and all (see
	// redact.Unredacted), served only with --expose-pod-specs.
	Unredacted string
	// FirstSeen is when podsrc first saw the file rejected (since its last
	// good read or its creation).
	FirstSeen time.Time
	// LastSeen is when podsrc last read the file and rejected it.
	LastSeen time.Time
}

// WarnedFile is a manifest file whose pod the kubelet accepts, and warns
// about in its log (see Decoder.DecodeFile).
type WarnedFile struct {
	// Path is the file's path on the host.
	Path string
	// Pod is the pod key, namespace/name (name with the node suffix).
	Pod string
	// Warnings are the decoder's warnings, in podsrc's words, one each.
	Warnings []string
}

// ShadowedFile is a valid manifest whose pod is replaced by the pod of the
// same namespace and name from another file: the kubelet keeps the file it
// read last (in sorted order during a relist).
type ShadowedFile struct {
	// Pod is the pod key, namespace/name (name with the node suffix).
	Pod string
	// Path is the file whose pod the kubelet dropped.
	Path string
	// By is the file whose pod the kubelet keeps.
	By string
}
