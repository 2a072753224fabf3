package agent

import (
	"fmt"
	"slices"

	"k8s.io/component-base/featuregate"
)

// setFeatureGates sets the kubelet's feature gates on fg, as the kubelet
// sets its own from its configuration and flags: the static pod decoder
// and its validation read them (PreventStaticPodAPIReferences among them).
// Gates fg does not know, a kubelet of another minor's or another
// component's, are left out and returned, sorted; a gate fg refuses (a
// locked one set against its lock) is an error naming it.
func setFeatureGates(fg featuregate.MutableFeatureGate, gates map[string]bool) ([]string, error) {
	known := fg.GetAll()
	set := map[string]bool{}
	var unknown []string
	for name, on := range gates {
		if _, ok := known[featuregate.Feature(name)]; !ok {
			unknown = append(unknown, name)
			continue
		}
		set[name] = on
	}
	slices.Sort(unknown)
	if len(set) == 0 {
		return unknown, nil
	}
	if err := fg.SetFromMap(set); err != nil {
		return unknown, fmt.Errorf("setting the kubelet's feature gates: %w", err)
	}
	return unknown, nil
}
