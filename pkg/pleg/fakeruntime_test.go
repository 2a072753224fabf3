package pleg

import (
	"context"
	"errors"
	"slices"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
)

// fakeRuntime is an in-memory cri.Runtime whose whole state is replaced at
// once, as the traces describe it.
type fakeRuntime struct {
	mu         sync.Mutex
	sandboxes  []*runtimeapi.PodSandbox
	containers []*runtimeapi.Container
	// owner maps object IDs to pod UIDs, for failing a pod's inspection.
	owner    map[string]string
	failPods map[string]bool
	listErr  error
	// listing, when set, is called by each ListPodSandbox: a relist that
	// takes time on a fake clock.
	listing func()
	// sandboxStatus and containerStatus override the generated statuses.
	sandboxStatus   map[string]*runtimeapi.PodSandboxStatus
	containerStatus map[string]*runtimeapi.ContainerStatus
	statusCalls     int
}

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{
		owner:           map[string]string{},
		failPods:        map[string]bool{},
		sandboxStatus:   map[string]*runtimeapi.PodSandboxStatus{},
		containerStatus: map[string]*runtimeapi.ContainerStatus{},
	}
}

func (f *fakeRuntime) set(sandboxes []*runtimeapi.PodSandbox, containers []*runtimeapi.Container, failPods ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sandboxes, f.containers = sandboxes, containers
	clear(f.owner)
	for _, s := range sandboxes {
		f.owner[s.Id] = s.GetMetadata().GetUid()
	}
	for _, c := range containers {
		f.owner[c.Id] = c.Labels[cri.LabelPodUID]
	}
	clear(f.failPods)
	for _, p := range failPods {
		f.failPods[p] = true
	}
}

// failLists makes the List calls fail ("down") or succeed again.
func (f *fakeRuntime) failLists(fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listErr = nil
	if fail {
		f.listErr = errors.New("down")
	}
}

// onList sets the function each ListPodSandbox calls.
func (f *fakeRuntime) onList(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listing = fn
}

func (f *fakeRuntime) ListPodSandbox(context.Context, *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	f.mu.Lock()
	listing := f.listing
	f.mu.Unlock()
	if listing != nil {
		listing()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	return slices.Clone(f.sandboxes), nil
}

func (f *fakeRuntime) ListContainers(context.Context, *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	return slices.Clone(f.containers), nil
}

func (f *fakeRuntime) PodSandboxStatus(_ context.Context, id string) (*runtimeapi.PodSandboxStatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statusCalls++
	if f.failPods[f.owner[id]] {
		return nil, status.Error(codes.Unavailable, "injected status failure")
	}
	if st, ok := f.sandboxStatus[id]; ok {
		return &runtimeapi.PodSandboxStatusResponse{Status: st}, nil
	}
	for _, s := range f.sandboxes {
		if s.Id == id {
			return &runtimeapi.PodSandboxStatusResponse{Status: &runtimeapi.PodSandboxStatus{
				Id: s.Id, Metadata: s.Metadata, State: s.State, CreatedAt: s.CreatedAt,
			}}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "no such sandbox")
}

func (f *fakeRuntime) ContainerStatus(_ context.Context, id string) (*runtimeapi.ContainerStatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statusCalls++
	if f.failPods[f.owner[id]] {
		return nil, status.Error(codes.Unavailable, "injected status failure")
	}
	if st, ok := f.containerStatus[id]; ok {
		return &runtimeapi.ContainerStatusResponse{Status: st}, nil
	}
	for _, c := range f.containers {
		if c.Id == id {
			return &runtimeapi.ContainerStatusResponse{Status: &runtimeapi.ContainerStatus{
				Id: c.Id, Metadata: c.Metadata, State: c.State, CreatedAt: c.CreatedAt,
				Image: c.Image, ImageRef: c.ImageRef, Labels: c.Labels, Annotations: c.Annotations,
			}}, nil
		}
	}
	return nil, status.Error(codes.NotFound, "no such container")
}
