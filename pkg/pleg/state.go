package pleg

import (
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// ContainerState is the state of a container or sandbox in the kubelet's
// words (its kubecontainer.State), as v1alpha1.RuntimeContainer.State
// serves it.
type ContainerState string

const (
	// StateCreated is a container that was created but not started.
	StateCreated ContainerState = v1alpha1.ContainerCreated
	// StateRunning is a running container or a ready sandbox.
	StateRunning ContainerState = v1alpha1.ContainerRunning
	// StateExited is an exited container or a sandbox that is not ready.
	StateExited ContainerState = v1alpha1.ContainerExited
	// StateUnknown is anything else.
	StateUnknown ContainerState = v1alpha1.ContainerUnknown
)

// containerState maps a CRI container state the way the kubelet does.
func containerState(s runtimeapi.ContainerState) ContainerState {
	switch s {
	case runtimeapi.ContainerState_CONTAINER_CREATED:
		return StateCreated
	case runtimeapi.ContainerState_CONTAINER_RUNNING:
		return StateRunning
	case runtimeapi.ContainerState_CONTAINER_EXITED:
		return StateExited
	}
	return StateUnknown
}

// sandboxState maps a CRI sandbox state the way the kubelet does: ready is
// running, not ready is exited.
func sandboxState(s runtimeapi.PodSandboxState) ContainerState {
	switch s {
	case runtimeapi.PodSandboxState_SANDBOX_READY:
		return StateRunning
	case runtimeapi.PodSandboxState_SANDBOX_NOTREADY:
		return StateExited
	}
	return StateUnknown
}

// plegState is the PLEG's coarser view of a state, plus "does not exist".
type plegState uint8

const (
	plegNonExistent plegState = iota
	plegRunning
	plegExited
	plegUnknown
)

// String names the state like the kubelet's logs do.
func (s plegState) String() string {
	switch s {
	case plegRunning:
		return "running"
	case plegExited:
		return "exited"
	case plegUnknown:
		return "unknown"
	}
	return "non-existent"
}

// plegStateOf folds a kubelet state into the PLEG's view; the kubelet does
// not use "created" and reports it as unknown.
func plegStateOf(s ContainerState) plegState {
	switch s {
	case StateRunning:
		return plegRunning
	case StateExited:
		return plegExited
	}
	return plegUnknown
}
