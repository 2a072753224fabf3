package syncloop

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
)

// viewKey identifies a pod of the view: the same UID may come from two
// sources, and the merge keeps both.
type viewKey struct {
	source string
	uid    types.UID
}

// View is the pod configuration as the merge's consumer has been told it:
// what the kubelet's pod manager would hold after the same notifications.
// It is not safe for concurrent use; the agent guards it.
type View struct {
	pods map[viewKey]Sourced
}

// NewView returns an empty view.
func NewView() *View { return &View{pods: make(map[viewKey]Sourced)} }

// Apply folds one notification of the merge into the view, each pod with
// its origin as the merge carried it, and verdicts, the admission's
// verdicts on the notification's pods by UID: a pod without one keeps the
// verdict it had.
func (v *View) Apply(u merge.PodUpdate, verdicts map[types.UID]v1alpha1.Admission) {
	switch u.Op {
	case merge.Add, merge.Update, merge.Delete, merge.Reconcile:
		for i, p := range u.Pods {
			k := viewKey{u.Source, p.UID}
			s := Sourced{Source: u.Source, Pod: p, Origin: originAt(u, i), Admission: v.pods[k].Admission}
			if a, ok := verdicts[p.UID]; ok {
				s.Admission = &a
			}
			v.pods[k] = s
		}
	case merge.Remove:
		for _, p := range u.Pods {
			delete(v.pods, viewKey{u.Source, p.UID})
		}
	case merge.Set:
		// The kubelet's sync loop ignores SET ("does not support snapshot
		// update"), so its pod manager would stay as it was; the view
		// follows the merge instead, so that the snapshot modes still show
		// what the merge holds. A snapshot holds every source's pods, each
		// marked with its source.
		// A pod keeps its verdict.
		admitted := make(map[types.UID]*v1alpha1.Admission, len(v.pods))
		for k, s := range v.pods {
			if s.Admission != nil {
				admitted[k.uid] = s.Admission
			}
		}
		clear(v.pods)
		for i, p := range u.Pods {
			src := p.Annotations[merge.ConfigSourceAnnotation]
			v.pods[viewKey{src, p.UID}] = Sourced{Source: src, Pod: p, Origin: originAt(u, i), Admission: admitted[p.UID]}
		}
	}
}

// originAt returns the origin of the notification's i-th pod, "" for none.
func originAt(u merge.PodUpdate, i int) string {
	if i < len(u.Origins) {
		return u.Origins[i]
	}
	return ""
}

// SetAdmissions sets verdicts, by UID, on the view's pods that have the
// UIDs.
func (v *View) SetAdmissions(verdicts map[types.UID]v1alpha1.Admission) {
	for k, s := range v.pods {
		if a, ok := verdicts[k.uid]; ok {
			s.Admission = &a
			v.pods[k] = s
		}
	}
}

// Sourced is a pod of the view with the source it came from.
type Sourced struct {
	Source string
	Pod    *v1.Pod
	// Origin is where a static pod came from, as the merge carried it
	// (merge.PodUpdate.Origins), unmasked; "" for none.
	Origin string
	// Admission is the kubelet's admission verdict on the pod, nil for
	// none.
	Admission *v1alpha1.Admission
}

// Get returns the view's pod with the UID. A UID that two sources configure
// is answered, as in SortSourced's order, with the pod of the source first by name.
func (v *View) Get(uid types.UID) (Sourced, bool) {
	for _, src := range [...]string{v1alpha1.SourceAPI, v1alpha1.SourceFile, v1alpha1.SourceHTTP} {
		if s, ok := v.pods[viewKey{src, uid}]; ok {
			return s, true
		}
	}
	return Sourced{}, false
}

// Managed returns the pod the kubelet's pod manager holds under a runtime
// pod's UID, namespace and name, nil for none: the view's pod of the UID
// unless it is a mirror pod (the pod manager looks only the others up by
// UID); else the static pod of the namespace and name whose mirror pod
// names the UID as the kubelet's for it (podsrc decoded the static pod with
// another UID than the kubelet: another minor, or a bug). The pod is
// shared: callers must not modify it.
func (v *View) Managed(uid types.UID, namespace, name string) *v1.Pod {
	if s, ok := v.Get(uid); ok {
		if _, mirror := s.Pod.Annotations[merge.ConfigMirrorAnnotation]; !mirror {
			return s.Pod
		}
	}
	var static *v1.Pod
	mirrored := false
	for _, s := range v.Named(namespace, name) {
		switch {
		case s.Pod.Annotations[merge.ConfigMirrorAnnotation] == string(uid):
			mirrored = true
		case s.Source == v1alpha1.SourceFile || s.Source == v1alpha1.SourceHTTP:
			static = s.Pod
		}
	}
	if mirrored {
		return static
	}
	return nil
}

// Named returns the view's pods of one namespace and name, in no order.
// The pods are shared: callers must not modify them.
func (v *View) Named(namespace, name string) []Sourced {
	var out []Sourced
	for _, s := range v.pods {
		if s.Pod.Namespace == namespace && s.Pod.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// List returns the view's pods, in no order: the caller sorts them with
// SortSourced once it no longer holds the view's lock. The pods are shared:
// callers must not modify them.
func (v *View) List() []Sourced {
	out := make([]Sourced, 0, len(v.pods))
	for _, s := range v.pods {
		out = append(out, s)
	}
	return out
}

// SortSourced sorts pods by namespace, name and source.
func SortSourced(pods []Sourced) {
	slices.SortFunc(pods, func(a, b Sourced) int {
		if c := strings.Compare(a.Pod.Namespace, b.Pod.Namespace); c != 0 {
			return c
		}
		if c := strings.Compare(a.Pod.Name, b.Pod.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
}
