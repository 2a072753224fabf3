// Package kubeletsemantics says, for each kubelet minor, which of the merge's,
// the PLEG's and the sync loop's semantics reproduce it, and how its
// admission counts a pod's requests. It is the one place that maps a
// minor to them: the agent asks it once for the minor it was built for, and
// the merge's and the PLEG's conformance replays for the kubelet each trace
// was recorded from. pkg/merge, pkg/pleg and pkg/syncloop take the semantics as values and
// know nothing of minors.
package kubeletsemantics

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// Semantics is how one kubelet minor podsrc reproduces merges its pod
// sources' updates, runs its generic PLEG and dispatches in its sync loop,
// where minors differ.
type Semantics struct {
	Merge    merge.Semantics
	PLEG     pleg.Semantics
	SyncLoop syncloop.Semantics
	// PodLevelResources says that the kubelet's PodLevelResources feature
	// gate is on by default (beta from v1.34): its admission counts a pod's
	// pod-level requests (spec.resources) instead of its containers'.
	PodLevelResources bool
}

// byMinor is the semantics of each minor podsrc reproduces.
var byMinor = map[kubeletminor.Minor]Semantics{
	kubeletminor.V133: {Merge: merge.UpdatesGeneration, PLEG: pleg.NoPodSyncAfterReinspection, SyncLoop: syncloop.SetUnsupported, PodLevelResources: false},
	kubeletminor.V134: {Merge: merge.UpdatesGeneration, PLEG: pleg.NoPodSyncAfterReinspection, SyncLoop: syncloop.SetUnsupported, PodLevelResources: true},
	kubeletminor.V135: {Merge: merge.UpdatesGeneration, PLEG: pleg.NoPodSyncAfterReinspection, SyncLoop: syncloop.SetUnsupported, PodLevelResources: true},
	kubeletminor.V136: {Merge: merge.UpdatesGeneration, PLEG: pleg.PodSyncAfterReinspection, SyncLoop: syncloop.SetInvalid, PodLevelResources: true},
	kubeletminor.V137: {Merge: merge.UpdatesGeneration, PLEG: pleg.PodSyncAfterReinspection, SyncLoop: syncloop.SetInvalid, PodLevelResources: true},
}

// mergeV127 is the minor of the kubelet the historical merge traces were
// recorded from: only the merge's semantics reproduce it.
const mergeV127 kubeletminor.Minor = 27

// Of returns the semantics of a minor podsrc reproduces, and an error naming
// the reproduced minors for any other.
func Of(m kubeletminor.Minor) (Semantics, error) {
	s, ok := byMinor[m]
	if !ok {
		return Semantics{}, m.CheckSupported()
	}
	return s, nil
}

// MergeOf returns the merge's semantics of kubelet version, as a trace's
// kubelet field gives it: that of a minor podsrc reproduces, or of v1.27.
func MergeOf(version string) (merge.Semantics, error) {
	m, err := kubeletminor.Of(version)
	if err != nil {
		return 0, fmt.Errorf("choosing the merge's semantics: %w", err)
	}
	if m == mergeV127 {
		return merge.KeepsGeneration, nil
	}
	s, err := Of(m)
	if err != nil {
		return 0, fmt.Errorf("choosing the merge's semantics: %w (or %s)", err, mergeV127)
	}
	return s.Merge, nil
}

// PLEGOf returns the PLEG's semantics of kubelet version, as a trace's
// kubelet field gives it: that of a minor podsrc reproduces.
func PLEGOf(version string) (pleg.Semantics, error) {
	m, err := kubeletminor.Of(version)
	if err == nil {
		var s Semantics
		if s, err = Of(m); err == nil {
			return s.PLEG, nil
		}
	}
	return 0, fmt.Errorf("choosing the PLEG's semantics: %w", err)
}

// PodLevelResourcesOf says whether the admission of kubelet version (as a
// Node's status.nodeInfo.kubeletVersion gives it) counts pod-level
// requests by default: that of a minor podsrc reproduces.
func PodLevelResourcesOf(version string) (bool, error) {
	m, err := kubeletminor.Of(version)
	if err == nil {
		var s Semantics
		if s, err = Of(m); err == nil {
			return s.PodLevelResources, nil
		}
	}
	return false, fmt.Errorf("choosing how admission counts pod-level resources: %w", err)
}
