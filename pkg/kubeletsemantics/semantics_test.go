package kubeletsemantics

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/syncloop"
)

// TestOf checks the semantics of every reproduced minor, and that any other
// minor is an error, never a silent default.
func TestOf(t *testing.T) {
	want := map[kubeletminor.Minor]Semantics{
		kubeletminor.V133: {merge.UpdatesGeneration, pleg.NoPodSyncAfterReinspection, syncloop.SetUnsupported, false},
		kubeletminor.V134: {merge.UpdatesGeneration, pleg.NoPodSyncAfterReinspection, syncloop.SetUnsupported, true},
		kubeletminor.V135: {merge.UpdatesGeneration, pleg.NoPodSyncAfterReinspection, syncloop.SetUnsupported, true},
		kubeletminor.V136: {merge.UpdatesGeneration, pleg.PodSyncAfterReinspection, syncloop.SetInvalid, true},
		kubeletminor.V137: {merge.UpdatesGeneration, pleg.PodSyncAfterReinspection, syncloop.SetInvalid, true},
	}
	for _, m := range kubeletminor.Supported {
		if got, err := Of(m); err != nil || got != want[m] {
			t.Errorf("Of(%v) = %+v, %v; want %+v", m, got, err, want[m])
		}
	}
	if len(want) != len(kubeletminor.Supported) {
		t.Errorf("the test knows %d minors, kubeletminor supports %v", len(want), kubeletminor.Supported)
	}
	for _, m := range []kubeletminor.Minor{0, 27, 32, 38} {
		if got, err := Of(m); err == nil || !strings.Contains(err.Error(), "podsrc reproduces kubelet v1.33 to v1.37 only") {
			t.Errorf("Of(%v) = %+v, %v; want an error", m, got, err)
		}
	}
}

// TestEveryReproducedMinorHasSemantics keeps the table and the minors
// podsrc reproduces the same.
func TestEveryReproducedMinorHasSemantics(t *testing.T) {
	for m := range byMinor {
		if !slices.Contains(kubeletminor.Supported, m) {
			t.Errorf("semantics for %v, which podsrc does not reproduce", m)
		}
	}
	for _, m := range kubeletminor.Supported {
		if _, ok := byMinor[m]; !ok {
			t.Errorf("no semantics for %v", m)
		}
	}
}

// TestMergeOf checks the choice by a trace's kubelet version; a minor
// podsrc does not reproduce is an error, never a silent default.
func TestMergeOf(t *testing.T) {
	for version, want := range map[string]merge.Semantics{
		"v1.27.16": merge.KeepsGeneration, "v1.33.13": merge.UpdatesGeneration, "v1.34.0": merge.UpdatesGeneration,
		"v1.35.4": merge.UpdatesGeneration, "v1.36.3": merge.UpdatesGeneration, "v1.37.2": merge.UpdatesGeneration,
	} {
		if got, err := MergeOf(version); err != nil || got != want {
			t.Errorf("MergeOf(%s) = %v, %v; want %v", version, got, err, want)
		}
	}
	for _, version := range []string{"v1.28.0", "v1.32.9", "v1.38.0", ""} {
		if got, err := MergeOf(version); err == nil || !strings.Contains(err.Error(), "merge") {
			t.Errorf("MergeOf(%q) = %v, %v; want an error", version, got, err)
		}
	}
}

// TestPLEGOf checks the choice by a trace's kubelet version, and that a
// minor podsrc does not reproduce is an error, never a silent default.
func TestPLEGOf(t *testing.T) {
	for version, want := range map[string]pleg.Semantics{
		"v1.33.13": pleg.NoPodSyncAfterReinspection, "v1.34.0": pleg.NoPodSyncAfterReinspection, "v1.35.4": pleg.NoPodSyncAfterReinspection, "v1.36.3": pleg.PodSyncAfterReinspection, "v1.37.2": pleg.PodSyncAfterReinspection,
	} {
		if got, err := PLEGOf(version); err != nil || got != want {
			t.Errorf("PLEGOf(%s) = %v, %v; want %v", version, got, err, want)
		}
	}
	for _, version := range []string{"v1.32.0", "v1.38.0", "v1.27.16", "garbage"} {
		if got, err := PLEGOf(version); err == nil || !strings.Contains(err.Error(), "PLEG") {
			t.Errorf("PLEGOf(%s) = %v, %v; want an error", version, got, err)
		}
	}
}

// TestPodLevelResourcesOf: the kubelet's PodLevelResources gate is off by
// default in v1.33 (alpha) and on from v1.34 (beta), as each minor's
// k8s.io/kubernetes pkg/features says; any other minor is an error.
func TestPodLevelResourcesOf(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    bool
		wantErr bool
	}{
		{version: "v1.33.13", want: false},
		{version: "v1.34.4", want: true},
		{version: "v1.35.4", want: true},
		{version: "v1.36.3", want: true},
		{version: "v1.37.2", want: true},
		{version: "v1.32.9", wantErr: true},
		{version: "not a version", wantErr: true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			got, err := PodLevelResourcesOf(tc.version)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("PodLevelResourcesOf(%q) = %v, %v; want %v, error %v", tc.version, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
