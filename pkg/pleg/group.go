package pleg

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
)

// entry is one sandbox or container of a pod as one relist saw it.
type entry struct {
	id        string
	name      string // container name from the CRI metadata; empty for sandboxes
	state     ContainerState
	plegState plegState
	createdAt int64
	sandboxID string
	attempt   uint32
}

// podSnapshot is one pod as one relist saw it: its sandboxes and containers in
// the kubelet's order (newest first).
type podSnapshot struct {
	name       string
	namespace  string
	sandboxes  []entry
	containers []entry
}

// reset empties s for reuse, keeping its buffers.
func (s *podSnapshot) reset(name, namespace string) {
	s.name, s.namespace = name, namespace
	s.sandboxes = s.sandboxes[:0]
	s.containers = s.containers[:0]
}

// podSink hands out the snapshot a relist fills for a pod, creating it the
// first time the pod is seen in this relist (name and namespace come from the
// object that made the pod known first, as in the kubelet).
type podSink interface {
	pod(uid types.UID, name, namespace string) *podSnapshot
}

// sortSandboxes orders sandboxes like the kubelet: a higher attempt first when
// both have metadata and their attempts differ, else newest first, then by ID.
func sortSandboxes(s []*runtimeapi.PodSandbox) {
	slices.SortFunc(s, func(a, b *runtimeapi.PodSandbox) int {
		if a.Metadata != nil && b.Metadata != nil && a.Metadata.Attempt != b.Metadata.Attempt {
			return cmp.Compare(b.Metadata.Attempt, a.Metadata.Attempt)
		}
		if a.CreatedAt != b.CreatedAt {
			return cmp.Compare(b.CreatedAt, a.CreatedAt)
		}
		return cmp.Compare(a.Id, b.Id)
	})
}

// sortContainers orders containers like the kubelet: newest first, then by ID.
func sortContainers(c []*runtimeapi.Container) {
	slices.SortFunc(c, func(a, b *runtimeapi.Container) int {
		if a.CreatedAt != b.CreatedAt {
			return cmp.Compare(b.CreatedAt, a.CreatedAt)
		}
		return cmp.Compare(a.Id, b.Id)
	})
}

// group sorts the listed objects and distributes them over pods the way the
// kubelet's runtime manager does. Sandboxes belong to the pod of their
// metadata, containers to the pod of their labels. An object without
// metadata is ignored; a sandbox without ID, or a container without ID or
// image, makes its pod known but is itself ignored.
func group(sink podSink, sandboxes []*runtimeapi.PodSandbox, containers []*runtimeapi.Container) {
	sortSandboxes(sandboxes)
	for _, s := range sandboxes {
		m := s.Metadata
		if m == nil {
			continue
		}
		p := sink.pod(types.UID(m.Uid), m.Name, m.Namespace)
		if s.Id == "" {
			continue
		}
		st := sandboxState(s.State)
		p.sandboxes = append(p.sandboxes, entry{
			id:        s.Id,
			state:     st,
			plegState: plegStateOf(st),
			createdAt: s.CreatedAt,
			sandboxID: s.Id,
			attempt:   m.Attempt,
		})
	}
	sortContainers(containers)
	for _, c := range containers {
		if c.Metadata == nil {
			continue
		}
		l := c.Labels
		p := sink.pod(types.UID(l[cri.LabelPodUID]), l[cri.LabelPodName], l[cri.LabelPodNamespace])
		if c.Id == "" || c.Image == nil {
			continue
		}
		st := containerState(c.State)
		p.containers = append(p.containers, entry{
			id:        c.Id,
			name:      c.Metadata.Name,
			state:     st,
			plegState: plegStateOf(st),
			createdAt: c.CreatedAt,
			sandboxID: c.PodSandboxId,
			attempt:   c.Metadata.Attempt,
		})
	}
}
