// Package decoder is what kubelet v1.36 (k8s.io/kubernetes v1.36.3) does
// its own way when it decodes a static pod: FNV-128a UIDs, validation with
// options derived from the pod, and the PreventStaticPodAPIReferences gate.
// The decoding itself is pkg/staticpod/internalpod's, built here against
// v1.36's own code; pkg/staticpod.NewDecoder adds the file and URL flow.
package decoder

import (
	"hash/fnv"

	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/features"

	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// New returns the static pod decoder of kubelet v1.36. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder {
	return internalpod.NewDecoder(internalpod.Specifics{
		Version:                 "v1.36.3",
		NewUIDHash:              fnv.New128a,
		DeriveValidationOptions: true,
		ReferenceGate:           features.PreventStaticPodAPIReferences,
		FindAPIReference:        podutil.HasAPIObjectReference,
	})
}
