// Package cri talks to a node's container runtime over the CRI v1 API.
//
// Its client does what the kubelet's (k8s.io/cri-client) does for the calls
// the PLEG makes, including the status checks and the 16 MiB answer limit,
// without the OpenTelemetry instrumentation and component-base that one would
// link into the agent, and with a per-call timeout of its own.
package cri

import (
	"context"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Runtime is the part of the CRI runtime service that the PLEG needs. The
// Client of this package implements it over gRPC; tests implement it in memory.
// Implementations must be safe for concurrent use. The caller owns the
// slices the List methods return and may reorder them.
type Runtime interface {
	// ListPodSandbox lists the pod sandboxes that match filter (all of them
	// for a nil or empty filter).
	ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error)
	// ListContainers lists the containers that match filter (all of them, in
	// every state, for a nil or empty filter).
	ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error)
	// PodSandboxStatus inspects one pod sandbox.
	PodSandboxStatus(ctx context.Context, sandboxID string) (*runtimeapi.PodSandboxStatusResponse, error)
	// ContainerStatus inspects one container.
	ContainerStatus(ctx context.Context, containerID string) (*runtimeapi.ContainerStatusResponse, error)
}
