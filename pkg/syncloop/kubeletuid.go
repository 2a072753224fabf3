package syncloop

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
)

// Where a static pod's kubelet UID was read (v1alpha1.PodInfo.KubeletUIDFrom).
const (
	kubeletUIDFromMirror  = "mirror"
	kubeletUIDFromSandbox = "sandbox"
)

// KubeletUIDs finds the UID the kubelet itself gave a static pod where the
// node reveals it: the config.mirror of its mirror pod, else the UID of a
// runtime pod (its sandboxes' pod UID label) of the same namespace and
// name, its own when the runtime has it.
type KubeletUIDs struct {
	// mirrors and runtime are by namespace/name.
	mirrors map[string]string
	runtime map[string][]types.UID
	rt      map[types.UID]pleg.RuntimePod
}

// NewKubeletUIDs indexes the configured pods' mirror pods and the
// runtime's pods.
func NewKubeletUIDs(configured []Sourced, rt map[types.UID]pleg.RuntimePod) KubeletUIDs {
	k := KubeletUIDs{mirrors: map[string]string{}, runtime: map[string][]types.UID{}, rt: rt}
	for _, s := range configured {
		if uid := s.Pod.Annotations[merge.ConfigMirrorAnnotation]; uid != "" {
			k.mirrors[s.Pod.Namespace+"/"+s.Pod.Name] = uid
		}
	}
	for uid, rp := range rt {
		key := rp.Namespace + "/" + rp.Name
		k.runtime[key] = append(k.runtime[key], uid)
	}
	return k
}

// Set fills in p's KubeletUID and KubeletUIDFrom when p is a static pod and
// the node reveals its UID.
func (k KubeletUIDs) Set(p *v1alpha1.PodInfo) {
	if !p.Static {
		return
	}
	key := p.Namespace + "/" + p.Name
	if uid, ok := k.mirrors[key]; ok {
		p.KubeletUID, p.KubeletUIDFrom = uid, kubeletUIDFromMirror
		return
	}
	uids := k.runtime[key]
	switch {
	case len(uids) == 0:
		return
	case slices.Contains(uids, p.UID):
		p.KubeletUID = string(p.UID)
	default:
		// Several only while the kubelet replaces one: the same choice
		// every time.
		p.KubeletUID = string(slices.MinFunc(uids, func(x, y types.UID) int { return strings.Compare(string(x), string(y)) }))
	}
	p.KubeletUIDFrom = kubeletUIDFromSandbox
}
