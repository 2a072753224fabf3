package cluster

import (
	"os"
	"regexp"
	"testing"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// TestKubeletVersionIsTheBuilds checks that KubeletVersion is the version
// hack/lib/build.sh builds the cluster's Kubernetes at, KubeletMinor its
// minor, and Node2KubeletVersion hack/lib/cluster.sh's second node's.
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
	data, err = os.ReadFile("../../hack/lib/cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	m = regexp.MustCompile(`(?m)^NODE2_KUBELET_VERSION=\$\{PODSRC_NODE2_KUBELET:-(\S+)\}$`).FindSubmatch(data)
	if m == nil || string(m[1]) != Node2KubeletVersion {
		t.Errorf("hack/lib/cluster.sh's second node runs kubelet %q, Node2KubeletVersion is %s", m, Node2KubeletVersion)
	}
}
