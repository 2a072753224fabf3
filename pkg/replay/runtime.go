package replay

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// runtime answers the PLEG of a replay as the container runtime answered
// the agent's, one recorded relist at a time (cri.Runtime).
type runtime struct {
	listing *v1alpha1.RelistInput
	// sandboxes and containers are the relist's recorded inspections by
	// the ID inspected, in the order the PLEG asked.
	sandboxes, containers map[string][]*v1alpha1.InspectionInput
}

// relist sets the answers of the next relist: its listing and the
// inspections recorded after it.
func (r *runtime) relist(l *v1alpha1.RelistInput, inspections []*v1alpha1.InspectionInput) {
	r.listing = l
	r.sandboxes, r.containers = map[string][]*v1alpha1.InspectionInput{}, map[string][]*v1alpha1.InspectionInput{}
	for _, in := range inspections {
		if in.SandboxID != "" {
			r.sandboxes[in.SandboxID] = append(r.sandboxes[in.SandboxID], in)
		} else {
			r.containers[in.ContainerID] = append(r.containers[in.ContainerID], in)
		}
	}
}

func (r *runtime) ListPodSandbox(context.Context, *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	return slices.Clone(r.listing.Sandboxes), nil
}

func (r *runtime) ListContainers(context.Context, *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	return slices.Clone(r.listing.Containers), nil
}

func (r *runtime) PodSandboxStatus(_ context.Context, id string) (*runtimeapi.PodSandboxStatusResponse, error) {
	in, err := next(r.sandboxes, "sandbox", id)
	if err != nil {
		return nil, err
	}
	return &runtimeapi.PodSandboxStatusResponse{Status: in.Sandbox}, nil
}

func (r *runtime) ContainerStatus(_ context.Context, id string) (*runtimeapi.ContainerStatusResponse, error) {
	in, err := next(r.containers, "container", id)
	if err != nil {
		return nil, err
	}
	return &runtimeapi.ContainerStatusResponse{Status: in.Container}, nil
}

// next takes the next recorded inspection of id, as its answer: the
// recorded error, NotFound as the runtime's gRPC status, or an error when
// the agent's PLEG did not ask this in the relist.
func next(answers map[string][]*v1alpha1.InspectionInput, what, id string) (*v1alpha1.InspectionInput, error) {
	q := answers[id]
	if len(q) == 0 {
		return nil, fmt.Errorf("the agent's PLEG did not inspect %s %s in this relist", what, id)
	}
	in := q[0]
	answers[id] = q[1:]
	switch {
	case in.NotFound:
		return nil, status.Error(codes.NotFound, in.Error)
	case in.Error != "":
		return nil, fmt.Errorf("%s", in.Error)
	}
	return in, nil
}
