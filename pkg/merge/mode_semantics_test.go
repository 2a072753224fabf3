package merge

import "testing"

// TestSemanticsFor checks the choice by kubelet version; a minor podsrc
// does not reproduce is an error, never a silent default.
func TestSemanticsFor(t *testing.T) {
	for version, want := range map[string]Semantics{
		"v1.27.16": KubeletV127, "v1.33.13": KubeletV133ToV136, "v1.34.0": KubeletV133ToV136,
		"v1.35.4": KubeletV133ToV136, "v1.36.3": KubeletV133ToV136,
	} {
		if got, err := SemanticsFor(version); err != nil || got != want {
			t.Errorf("SemanticsFor(%s) = %v, %v; want %v", version, got, err, want)
		}
	}
	for _, version := range []string{"v1.28.0", "v1.32.9", "v1.37.0", ""} {
		if got, err := SemanticsFor(version); err == nil {
			t.Errorf("SemanticsFor(%q) = %v; want an error", version, got)
		}
	}
}
