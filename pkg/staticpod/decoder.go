// Package staticpod defines how podsrc turns static pod manifests into pods.
//
// The kubelet derives a static pod's UID from a hash of its internal Pod
// type, which only k8s.io/kubernetes provides, and each kubelet minor has
// its own. That dependency needs replace directives, so the decoding through
// the internal type lives in a module of its own (github.com/podsrc/podsrc/
// pkg/staticpod/internalpod) that implements Kubelet, and each minor's module
// (cmd/podsrc-agent/kubelet1NN for v1.NN) builds it against that minor's k8s.io/kubernetes
// with the few parts that differ; NewDecoder adds the file and URL flow every
// minor shares. The root module only knows the interfaces and injects
// nothing itself.
package staticpod

import (
	v1 "k8s.io/api/core/v1"
)

// Decoder turns manifest bytes into pods exactly as one kubelet version does:
// decoding with API defaulting, validation, the node-name suffix, the default
// namespace, spec.nodeName, the NoExecute toleration (files only), phase
// Pending and the hashed UID written to kubernetes.io/config.hash.
//
// Implementations must be safe for concurrent use.
type Decoder interface {
	// DecodeFile decodes the manifest of one static pod file. hostPath is the
	// file's path as the kubelet sees it on the host; it enters the UID hash
	// and the error messages. The error is the kubelet's own message for a
	// file it rejects, without the manifest's content: it keeps the class
	// and position of the failure, never the bytes it could not decode
	// (redact.Unredacted gives the kubelet's message in full). warnings
	// are what the kubelet logs about the pod without rejecting it (see
	// Kubelet.DecodePod), in podsrc's words; none with an error.
	DecodeFile(data []byte, hostPath, nodeName string) (pod *v1.Pod, warnings []string, err error)

	// DecodeURL decodes the body served at a static pod URL: a single pod or,
	// when that does not parse, a pod list. url enters the UID hash. When it
	// returns an error the kubelet sends no update for the body; the
	// error leaves the body's content out, as DecodeFile's. data must
	// not be empty (the URL source handles an empty body itself). warnings
	// are those of a single pod, as DecodeFile's: the kubelet checks no
	// pod of a pod list.
	DecodeURL(data []byte, url, nodeName string) (pods []*v1.Pod, warnings []string, err error)

	// KubeletVersion returns the kubelet version whose decoding, validation
	// and UID hashing the decoder follows, such as "v1.36.3". UIDs are only
	// right for kubelets whose internal Pod type matches that version.
	KubeletVersion() string
}
