package pleg

import (
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// TestEventTypesAreTheWireTypes checks that the PLEG's event types are
// v1alpha1's, one to one: each EventType is one of v1alpha1.PLEGTypes, no
// two share one, and every one of them is some EventType.
func TestEventTypesAreTheWireTypes(t *testing.T) {
	cases := []struct {
		typ  EventType
		want string
	}{
		{ContainerStarted, v1alpha1.PLEGContainerStarted},
		{ContainerDied, v1alpha1.PLEGContainerDied},
		{ContainerRemoved, v1alpha1.PLEGContainerRemoved},
		{PodSync, v1alpha1.PLEGPodSync},
		{ContainerChanged, v1alpha1.PLEGContainerChanged},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if string(c.typ) != c.want {
				t.Errorf("EventType %q, want %q", c.typ, c.want)
			}
			if seen[string(c.typ)] {
				t.Errorf("EventType %q appears twice", c.typ)
			}
			seen[string(c.typ)] = true
		})
	}
	for _, w := range v1alpha1.PLEGTypes {
		if !seen[w] {
			t.Errorf("v1alpha1 PLEG type %q is no EventType", w)
		}
	}
	if len(seen) != len(v1alpha1.PLEGTypes) {
		t.Errorf("%d EventTypes for %d v1alpha1.PLEGTypes", len(seen), len(v1alpha1.PLEGTypes))
	}
}
