package serve

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// ListPods is State.Pods of a state that holds its pods as one list (the
// fake agent's, an archive's): l without its items, and its items that q
// keeps. The items are those of l when ListPods is called.
func ListPods(l v1alpha1.PodList, q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	head := l
	head.Items = nil
	kept := slices.DeleteFunc(slices.Clone(l.Items), func(p v1alpha1.PodInfo) bool { return !q.Match(p) })
	return head, func(yield func(v1alpha1.PodInfo) error) error {
		for _, p := range kept {
			if err := yield(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// FindPod is State.Pod of a state that holds its pods as one list: the
// item of l with the UID, as a top-level object, or an error that names
// where it was looked for (l's node, and when, such as "when it was
// recorded"; empty for now).
func FindPod(l v1alpha1.PodList, uid types.UID, when string) (v1alpha1.PodInfo, error) {
	i := slices.IndexFunc(l.Items, func(p v1alpha1.PodInfo) bool { return p.UID == uid })
	if i < 0 {
		if when != "" {
			when = " " + when
		}
		return v1alpha1.PodInfo{}, fmt.Errorf("no pod with UID %q in any source or in the runtime of node %s%s", uid, l.NodeName, when)
	}
	info := l.Items[i]
	info.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
	return info, nil
}
