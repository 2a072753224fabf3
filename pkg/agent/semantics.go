package agent

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// semantics are the kubelet minor's behaviours the agent reproduces besides
// its static pod decoder.
type semantics struct {
	merge    merge.Semantics
	pleg     pleg.Semantics
	syncLoop syncLoop
}

// semanticsFor chooses the merge's and the PLEG's semantics and the sync
// loop of the kubelet minor an agent build reproduces throughout.
// maxDeadPerContainer is the kubelet's
// --maximum-dead-containers-per-container.
func semanticsFor(kubelet kubeletminor.Minor, maxDeadPerContainer int) (semantics, error) {
	s, err := kubeletsemantics.Of(kubelet)
	if err != nil {
		return semantics{}, fmt.Errorf("the agent's kubelet minor: %w", err)
	}
	return semantics{merge: s.Merge, pleg: s.PLEG, syncLoop: newSyncLoop(s.SyncLoopSetCase, maxDeadPerContainer)}, nil
}
