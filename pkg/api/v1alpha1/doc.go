// Package v1alpha1 holds the JSON types the podsrc agent serves under
// /api/v1alpha1 and the kubectl plugin reads. Top-level objects carry
// apiVersion and kind, so that kubectl-style printers can print them.
package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GroupVersion is the apiVersion of every top-level object.
const GroupVersion = GroupName + "/" + VersionName

// GroupName and VersionName make up GroupVersion; /version's servedVersion
// is VersionName.
const (
	GroupName   = "podsrc.io"
	VersionName = "v1alpha1"
)

// Kinds of the top-level objects.
const (
	KindSourceList = "SourceList"
	KindSource     = "Source"
	KindPodList    = "PodList"
	KindPod        = "PodInfo"
	KindPLEGStatus = "PLEGStatus"
	KindVersion    = "Version"
	KindStatus     = "Status"
)

// Kinds of the objects kubectl podsrc prints that no agent serves (see
// KindWhyReport too): pod's answer, and a message of a node's event stream
// as watch and events print it.
const (
	KindPodDetail     = "PodDetail"
	KindStreamMessage = "StreamMessage"
)

// TypeMetaFor returns the TypeMeta of a top-level object of the given kind.
func TypeMetaFor(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: GroupVersion, Kind: kind}
}
