package agent

import (
	"context"
	"slices"
	"strings"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	crierrors "k8s.io/cri-api/pkg/errors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// kubeletLabelPrefix starts the labels the kubelet puts on sandboxes and
// containers, which name the pod and the container; the pod's own labels
// and annotations, which may hold anything, are not recorded.
const kubeletLabelPrefix = "io.kubernetes."

// recordingRuntime is the PLEG's runtime, which records what the runtime
// answered it as inputs (v1alpha1.RelistInput, v1alpha1.InspectionInput),
// for a replay of the relists. A relist's listing is recorded before its
// first inspection or event (recordedHandler), and not at all for a relist
// that inspects nothing and makes no event: that one changes nothing the
// PLEG keeps, and costs nothing to record. Only the PLEG calls it, one
// relist at a time.
type recordingRuntime struct {
	cri.Runtime
	in *inputs

	// sandboxes and containers are the relist's listing, which the PLEG
	// sorts but never changes; listed says it is not recorded yet.
	sandboxes  []*runtimeapi.PodSandbox
	containers []*runtimeapi.Container
	listed     bool
}

func (r *recordingRuntime) ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	s, err := r.Runtime.ListPodSandbox(ctx, filter)
	r.sandboxes, r.containers, r.listed = s, nil, false
	return s, err
}

func (r *recordingRuntime) ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	c, err := r.Runtime.ListContainers(ctx, filter)
	r.containers, r.listed = c, err == nil
	return c, err
}

// flush records the relist's listing, if it is not yet: with only what
// the PLEG reads, in the order of the IDs (the runtime lists in no set
// order; the PLEG sorts what it groups).
func (r *recordingRuntime) flush() {
	if !r.listed {
		return
	}
	r.listed = false
	l := &v1alpha1.RelistInput{Sandboxes: make([]*runtimeapi.PodSandbox, len(r.sandboxes)), Containers: make([]*runtimeapi.Container, len(r.containers))}
	for i, s := range r.sandboxes {
		l.Sandboxes[i] = &runtimeapi.PodSandbox{Id: s.Id, Metadata: s.Metadata, State: s.State, CreatedAt: s.CreatedAt}
	}
	for i, x := range r.containers {
		l.Containers[i] = &runtimeapi.Container{Id: x.Id, PodSandboxId: x.PodSandboxId, Metadata: x.Metadata, Image: x.Image, ImageRef: x.ImageRef,
			State: x.State, CreatedAt: x.CreatedAt, Labels: kubeletLabels(x.Labels), Annotations: restartCount(x.Annotations)}
	}
	slices.SortFunc(l.Sandboxes, func(a, b *runtimeapi.PodSandbox) int { return strings.Compare(a.Id, b.Id) })
	slices.SortFunc(l.Containers, func(a, b *runtimeapi.Container) int { return strings.Compare(a.Id, b.Id) })
	r.in.publish(&v1alpha1.Input{Relist: l})
}

// recordedHandler hands the PLEG's events on, each after the listing of
// the relist that computed it.
type recordedHandler struct {
	runtime *recordingRuntime
	pleg.EventHandler
}

func (h recordedHandler) HandleEvent(e pleg.ComputedEvent) {
	h.runtime.flush()
	h.EventHandler.HandleEvent(e)
}

func (r *recordingRuntime) PodSandboxStatus(ctx context.Context, id string) (*runtimeapi.PodSandboxStatusResponse, error) {
	resp, err := r.Runtime.PodSandboxStatus(ctx, id)
	in := &v1alpha1.InspectionInput{SandboxID: id}
	if s := resp.GetStatus(); err == nil && s != nil {
		in.Sandbox = &runtimeapi.PodSandboxStatus{Id: s.Id, Metadata: s.Metadata, State: s.State, CreatedAt: s.CreatedAt, Network: s.Network}
	}
	r.inspected(in, err)
	return resp, err
}

func (r *recordingRuntime) ContainerStatus(ctx context.Context, id string) (*runtimeapi.ContainerStatusResponse, error) {
	resp, err := r.Runtime.ContainerStatus(ctx, id)
	in := &v1alpha1.InspectionInput{ContainerID: id}
	if s := resp.GetStatus(); err == nil && s != nil {
		in.Container = &runtimeapi.ContainerStatus{Id: s.Id, Metadata: s.Metadata, State: s.State, CreatedAt: s.CreatedAt, StartedAt: s.StartedAt,
			FinishedAt: s.FinishedAt, ExitCode: s.ExitCode, Image: s.Image, ImageRef: s.ImageRef, Reason: s.Reason,
			Labels: kubeletLabels(s.Labels), Annotations: restartCount(s.Annotations)}
		if r.in.exposed {
			in.Container.Message = s.Message
		}
	}
	r.inspected(in, err)
	return resp, err
}

// inspected records an inspection, after the relist's listing.
func (r *recordingRuntime) inspected(in *v1alpha1.InspectionInput, err error) {
	r.flush()
	if err != nil {
		in.Error, in.NotFound = err.Error(), crierrors.IsNotFound(err)
	}
	r.in.publish(&v1alpha1.Input{Inspection: in, Redacted: !r.in.exposed})
}

// kubeletLabels returns the labels the kubelet set.
func kubeletLabels(l map[string]string) map[string]string {
	var out map[string]string
	for k, v := range l {
		if strings.HasPrefix(k, kubeletLabelPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// restartCount returns the kubelet's restart count annotation alone.
func restartCount(a map[string]string) map[string]string {
	if v, ok := a[cri.AnnotationRestartCount]; ok {
		return map[string]string{cri.AnnotationRestartCount: v}
	}
	return nil
}
