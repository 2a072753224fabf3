// Package decoder is what kubelet v1.37 (k8s.io/kubernetes v1.37.2) does
// its own way when it decodes a static pod: FNV-128a UIDs of its own
// internal Pod type, validation with options derived from the pod, every
// API object reference banned (PreventStaticPodAPIReferences is GA and
// gone), and a warning about a single pod whose priority and
// priorityClassName are not system-node-critical's. The decoding itself is
// pkg/staticpod/internalpod's, built here against v1.37's own code;
// pkg/staticpod.NewDecoder adds the file and URL flow.
package decoder

import (
	"hash/fnv"

	podutil "k8s.io/kubernetes/pkg/api/pod"

	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// New returns the static pod decoder of kubelet v1.37. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder {
	return internalpod.NewDecoder(internalpod.Specifics{
		Version:                 "v1.37.2",
		NewUIDHash:              fnv.New128a,
		DeriveValidationOptions: true,
		ReferencesBanned:        true,
		FindAPIReference:        podutil.HasAPIObjectReference,
		PriorityWarning:         priorityWarning,
	})
}
