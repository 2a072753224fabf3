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
	// object reference (PreventStaticPodAPIReferences, v1.34 to v1.36);
	// empty where the minor has no such gate.
	ReferenceGate featuregate.Feature

	// ReferencesBanned bans every API object reference whatever the gates
	// (v1.37 on, where PreventStaticPodAPIReferences is gone).
	ReferencesBanned bool

	// FindAPIReference reports the first API object the pod references, by
	// its resource name (the minor's podutil.HasAPIObjectReference). It is
	// used while references are banned (ReferencesBanned, or ReferenceGate
	// on), and must be set with either.
	FindAPIReference func(*api.Pod) (found bool, resource string, err error)

	// PriorityWarning returns the minor's warning about a single static
	// pod's priority and priorityClassName (v1.37 on: the kubelet logs it
	// and keeps the pod), or "" for none. Nil where the kubelet checks
	// nothing. A pod list's items are never checked.
	PriorityWarning func(*api.Pod) string
}
