// Package decoder is what kubelet v1.34 (k8s.io/kubernetes v1.34.4) does
// its own way when it decodes a static pod: MD5 UIDs, validation with empty
// options, and the PreventStaticPodAPIReferences gate.
// The decoding itself is pkg/staticpod/internalpod's, built here against
// v1.34's own code; pkg/staticpod.NewDecoder adds the file and URL flow.
package decoder

import (
	"crypto/md5"

	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/features"

	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// New returns the static pod decoder of kubelet v1.34. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder {
	return internalpod.NewDecoder(internalpod.Specifics{
		Version:          "v1.34.4",
		NewUIDHash:       md5.New,
		ReferenceGate:    features.PreventStaticPodAPIReferences,
		FindAPIReference: podutil.HasAPIObjectReference,
	})
}
