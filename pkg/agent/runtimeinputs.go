package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	crierrors "k8s.io/cri-api/pkg/errors"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
)

// kubeletLabelPrefix starts the labels the kubelet puts on sandboxes and
// containers, which name the pod and the container; the pod's own labels
// and annotations, which may hold anything, are not recorded.
const kubeletLabelPrefix = "io.kubernetes."

// recordingRuntime is the PLEG's runtime, which records what the runtime
// answered it as inputs (v1alpha1.RelistInput, v1alpha1.InspectionInput),
// for a replay of the relists. Only the PLEG calls it, one relist at a
// time.
type recordingRuntime struct {
	cri.Runtime
	in *inputs

	// sandboxes is the relist's sandbox listing, until its containers'.
	sandboxes []*runtimeapi.PodSandbox
	// last is the listing last recorded; pending, one that lists the same
	// and is recorded only if the relist inspects a pod.
	last, pending *v1alpha1.RelistInput
}

func (r *recordingRuntime) ListPodSandbox(ctx context.Context, filter *runtimeapi.PodSandboxFilter) ([]*runtimeapi.PodSandbox, error) {
	s, err := r.Runtime.ListPodSandbox(ctx, filter)
	r.sandboxes, r.pending = s, nil
	return s, err
}

func (r *recordingRuntime) ListContainers(ctx context.Context, filter *runtimeapi.ContainerFilter) ([]*runtimeapi.Container, error) {
	c, err := r.Runtime.ListContainers(ctx, filter)
	if err != nil {
		return c, err
	}
	l := &v1alpha1.RelistInput{Sandboxes: make([]*runtimeapi.PodSandbox, len(r.sandboxes)), Containers: make([]*runtimeapi.Container, len(c))}
	for i, s := range r.sandboxes {
		l.Sandboxes[i] = &runtimeapi.PodSandbox{Id: s.Id, Metadata: s.Metadata, State: s.State, CreatedAt: s.CreatedAt}
	}
	for i, x := range c {
		l.Containers[i] = &runtimeapi.Container{Id: x.Id, PodSandboxId: x.PodSandboxId, Metadata: x.Metadata, Image: x.Image, ImageRef: x.ImageRef,
			State: x.State, CreatedAt: x.CreatedAt, Labels: kubeletLabels(x.Labels), Annotations: restartCount(x.Annotations)}
	}
	// The runtime lists in no set order; the PLEG sorts what it groups.
	slices.SortFunc(l.Sandboxes, func(a, b *runtimeapi.PodSandbox) int { return strings.Compare(a.Id, b.Id) })
	slices.SortFunc(l.Containers, func(a, b *runtimeapi.Container) int { return strings.Compare(a.Id, b.Id) })
	if sameListing(r.last, l) {
		r.pending = l
		return c, nil
	}
	r.record(l)
	return c, nil
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
	if r.pending != nil {
		r.record(r.pending)
	}
	if err != nil {
		in.Error, in.NotFound = err.Error(), crierrors.IsNotFound(err)
	}
	r.in.publish(&v1alpha1.Input{Inspection: in, Redacted: !r.in.exposed})
}

// record records a listing.
func (r *recordingRuntime) record(l *v1alpha1.RelistInput) {
	r.last, r.pending = l, nil
	r.in.publish(&v1alpha1.Input{Relist: l})
}

// sameListing reports whether two listings list the same: the same JSON,
// as the journal writes it (the CRI types of older minors' modules have no
// protobuf reflection to compare them by).
func sameListing(a, b *v1alpha1.RelistInput) bool {
	if a == nil || len(a.Sandboxes) != len(b.Sandboxes) || len(a.Containers) != len(b.Containers) {
		return false
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
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
