package pleg

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// RuntimeObject is a sandbox or container as the last relist listed it.
type RuntimeObject struct {
	ID string
	// Name is the container's name; empty for sandboxes.
	Name  string
	State ContainerState
	// PLEGState is the state the PLEG compares (created shows as unknown).
	PLEGState string
	Attempt   uint32
	SandboxID string
	CreatedAt time.Time
}

// RuntimePod is a pod as the last relist saw it, grouped like the kubelet
// groups runtime objects.
type RuntimePod struct {
	ID        types.UID
	Name      string
	Namespace string
	// Sandboxes and Containers are in the kubelet's order, newest first.
	Sandboxes  []RuntimeObject
	Containers []RuntimeObject
}

// podList collects the pods of a listing; it implements podSink.
type podList struct {
	byUID map[types.UID]*podSnapshot
	order []types.UID
}

func (l *podList) pod(uid types.UID, name, namespace string) *podSnapshot {
	if p, ok := l.byUID[uid]; ok {
		return p
	}
	p := &podSnapshot{name: name, namespace: namespace}
	l.byUID[uid] = p
	l.order = append(l.order, uid)
	return p
}

// Pods returns the pods of the last successful relist, sorted by namespace,
// name and UID, and the start time of that relist. It costs nothing to
// relists: the grouping is redone on each call.
func (g *GenericPLEG) Pods() ([]RuntimePod, time.Time) {
	l := g.listed.Load()
	if l == nil {
		return nil, time.Time{}
	}
	pl := podList{byUID: make(map[types.UID]*podSnapshot)}
	// The listing is already sorted; group sorts again, harmlessly.
	group(&pl, slices.Clone(l.sandboxes), slices.Clone(l.containers))
	out := make([]RuntimePod, 0, len(pl.order))
	for _, uid := range pl.order {
		p := pl.byUID[uid]
		out = append(out, RuntimePod{
			ID:         uid,
			Name:       p.name,
			Namespace:  p.namespace,
			Sandboxes:  objects(p.sandboxes),
			Containers: objects(p.containers),
		})
	}
	slices.SortFunc(out, func(a, b RuntimePod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out, l.time
}

func objects(es []entry) []RuntimeObject {
	out := make([]RuntimeObject, len(es))
	for i, e := range es {
		out[i] = RuntimeObject{
			ID:        e.id,
			Name:      e.name,
			State:     e.state,
			PLEGState: e.plegState.String(),
			Attempt:   e.attempt,
			SandboxID: e.sandboxID,
			CreatedAt: nanos(e.createdAt),
		}
	}
	return out
}
