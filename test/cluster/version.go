package cluster

import "github.com/podsrc/podsrc/pkg/kubeletminor"

// KubeletVersion is the version of the cluster's control plane and of its
// first node's kubelet: hack/lib/build.sh's K8S_VERSION
// (TestKubeletVersionIsTheBuilds keeps them together).
const KubeletVersion = "v1.37.2"

// KubeletMinor is KubeletVersion's minor: the agent build the first node
// gets from kubectl podsrc deploy.
const KubeletMinor kubeletminor.Minor = 37

// Node2KubeletVersion is the kubelet of the cluster's second node:
// hack/lib/cluster.sh's NODE2_KUBELET_VERSION default
// (TestKubeletVersionIsTheBuilds keeps them together). Its build is cached
// beside the cluster's own, so a test may also run the first node's kubelet
// as this version.
const Node2KubeletVersion = "v1.34.4"
