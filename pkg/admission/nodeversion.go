package admission

import (
	v1 "k8s.io/api/core/v1"
	versionutil "k8s.io/apimachinery/pkg/util/version"
)

// NodeKubeletVersion is the version of node n's kubelet as its nodeInfo
// names it, or linked (the version of the kubelet an agent module links)
// where it names none that parses: the version the declared features admit
// handler judges a pod's features against.
func NodeKubeletVersion(n *v1.Node, linked string) *versionutil.Version {
	if v, err := versionutil.Parse(n.Status.NodeInfo.KubeletVersion); err == nil {
		return v
	}
	return versionutil.MustParse(linked)
}
