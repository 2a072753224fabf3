package cluster

import (
	"os"
	"regexp"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// TestKubeletVersionIsTheBuilds checks that KubeletVersion is the version
// hack/lib/build.sh builds the cluster's Kubernetes at, and KubeletMinor its
// minor.
func TestKubeletVersionIsTheBuilds(t *testing.T) {
	data, err := os.ReadFile("../../hack/lib/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^K8S_VERSION=(\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("hack/lib/build.sh sets no K8S_VERSION")
	}
	if got := string(m[1]); got != KubeletVersion {
		t.Errorf("hack/lib/build.sh builds Kubernetes %s, KubeletVersion is %s", got, KubeletVersion)
	}
	if minor, err := kubeletminor.Of(KubeletVersion); err != nil || minor != KubeletMinor {
		t.Errorf("the minor of %s is %v (%v), KubeletMinor is %v", KubeletVersion, minor, err, KubeletMinor)
	}
}
