package agent

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// defaultKubelet is the kubelet the agent reproduces without a decoder
// (tests, benchmarks).
const defaultKubelet = "v1.36"

// semantics are the kubelet minor's behaviours the agent reproduces besides
// its static pod decoder.
type semantics struct {
	merge    merge.Semantics
	pleg     pleg.Semantics
	syncLoop syncLoop
}

// semanticsFor chooses the merge's and the PLEG's semantics and the sync
// loop by the kubelet version the static pod decoder reproduces: an agent
// build links one minor's decoder and reproduces that minor throughout.
// maxDeadPerContainer is the kubelet's
// --maximum-dead-containers-per-container.
func semanticsFor(decoder staticpod.Decoder, maxDeadPerContainer int) (semantics, error) {
	v := defaultKubelet
	if decoder != nil {
		v = decoder.KubeletVersion()
	}
	var s semantics
	var err error
	if s.merge, err = merge.SemanticsFor(v); err != nil {
		return s, fmt.Errorf("the static pod decoder's kubelet: %w", err)
	}
	if s.pleg, err = pleg.SemanticsFor(v); err != nil {
		return s, fmt.Errorf("the static pod decoder's kubelet: %w", err)
	}
	if s.syncLoop, err = newSyncLoop(v, maxDeadPerContainer); err != nil {
		return s, fmt.Errorf("the static pod decoder's kubelet: %w", err)
	}
	return s, nil
}
