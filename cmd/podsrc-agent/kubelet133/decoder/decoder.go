// Package decoder is what kubelet v1.33 (k8s.io/kubernetes v1.33.13) does
// its own way when it decodes a static pod: MD5 UIDs, validation with empty
// options, and no PreventStaticPodAPIReferences gate (a single pod meets only
// the ClusterTrustBundle and ResourceClaims checks).
// The decoding itself is pkg/staticpod/internalpod's, built here against
// v1.33's own code; pkg/staticpod.NewDecoder adds the file and URL flow.
package decoder

import (
	"crypto/md5"

	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/staticpod/internalpod"
)

// New returns the static pod decoder of kubelet v1.33. It follows the
// process-wide feature gates, as the kubelet does.
func New() staticpod.Decoder {
	return internalpod.NewDecoder(internalpod.Specifics{
		Version:    "v1.33.13",
		NewUIDHash: md5.New,
	})
}
