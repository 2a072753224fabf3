package admission

import (
	"fmt"

	versionutil "k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"
)

// kubeletGates are the process-wide feature gates as v1.37's node declared
// features discovery asks for them, by name.
type kubeletGates struct{ featuregate.FeatureGate }

func (g kubeletGates) Enabled(name string) bool {
	return g.FeatureGate.Enabled(featuregate.Feature(name))
}

// declareFeatures is what kubelet v1.37 declares as its node's features,
// as its discoverNodeDeclaredFeatures does: the default framework on the
// process-wide feature gates, the runtime's features (by their CRI names)
// and the kubelet's version.
func declareFeatures(runtime map[string]bool, version string) ([]string, error) {
	v, err := versionutil.Parse(version)
	if err != nil {
		return nil, fmt.Errorf("the kubelet version %q: %w", version, err)
	}
	var rf ndf.RuntimeFeatures
	for name, on := range runtime {
		switch name {
		case "userNamespacesHostNetwork":
			rf.UserNamespacesHostNetwork = on
		case "mountOptions":
			rf.MountOptions = on
		default:
			return nil, fmt.Errorf("kubelet v1.37 reads no runtime feature %q", name)
		}
	}
	cfg := &ndf.NodeConfiguration{FeatureGates: kubeletGates{utilfeature.DefaultFeatureGate}, Version: v, RuntimeFeatures: rf}
	return ndf.DefaultFramework.DiscoverNodeFeatures(cfg), nil
}
