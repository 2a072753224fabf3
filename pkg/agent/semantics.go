package agent

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// semanticsFor chooses the merge's and the PLEG's semantics by the kubelet
// version the static pod decoder reproduces: an agent build links one
// minor's decoder and reproduces that minor throughout. Without a decoder
// (tests, benchmarks) it is v1.36.
func semanticsFor(decoder staticpod.Decoder) (merge.Semantics, pleg.Semantics, error) {
	if decoder == nil {
		return merge.KubeletV136, pleg.KubeletV136, nil
	}
	v := decoder.KubeletVersion()
	ms, err := merge.SemanticsFor(v)
	if err != nil {
		return 0, 0, fmt.Errorf("the static pod decoder's kubelet: %w", err)
	}
	ps, err := pleg.SemanticsFor(v)
	if err != nil {
		return 0, 0, fmt.Errorf("the static pod decoder's kubelet: %w", err)
	}
	return ms, ps, nil
}
