package internalpod

import (
	"hash"

	"k8s.io/component-base/featuregate"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// Specifics is what one kubelet minor does its own way when it decodes a static
// pod. Every other step is the same in all minors and lives in this package.
type Specifics struct {
	// Version is the k8s.io/kubernetes version the minor's module pins, for
	// binaries without module information.
	Version string

	// NewUIDHash returns the hash the generated UID is computed with (MD5
	// before v1.35, FNV-128a since).
	NewUIDHash func() hash.Hash

	// DeriveValidationOptions validates a pod with the options its own spec
	// and metadata call for, as the API server does on create (v1.35 on).
	// False validates with empty options.
	DeriveValidationOptions bool

	// ReferenceGate is the feature gate that turns on the ban of every API
	// object reference (PreventStaticPodAPIReferences, v1.34 on); empty where
	// the minor has no such gate.
	ReferenceGate featuregate.Feature

	// FindAPIReference reports the first API object the pod references, by
	// its resource name (the minor's podutil.HasAPIObjectReference). It is
	// used while ReferenceGate is on, and must be set with it.
	FindAPIReference func(*api.Pod) (found bool, resource string, err error)
}
