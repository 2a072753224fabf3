// Package source implements podsrc's copies of the kubelet's pod sources:
// the static pod path (file source) and the static pod URL (URL source)
// here, the API server in the apisource subpackage. Each sends the full list
// of its pods as merge.PodUpdate SETs, at the moments and with the content
// the kubelet's own source would, and keeps a Status for the agent's API.
// Config holds the sources' settings, from the kubelet's configuration that
// package nodeenv reads and from the agent's flags, and says which sources
// are on.
//
// This package needs nothing of client-go that kubelet v1.33's lacks, so
// that every kubelet minor's decoder module can replay its static pod
// traces through it; the API source uses newer client-go and lives apart.
package source
