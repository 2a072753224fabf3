package fakeagent

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// state is the fake's serve.State: its exported fields as they are, read
// under its lock at every request. It is live and ready.
type state struct{ a *Agent }

func (s state) Sources() v1alpha1.SourceList {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.a.Sources
}

func (s state) PLEG() v1alpha1.PLEGStatus {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.a.PLEG
}

func (s state) Version() v1alpha1.Version {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.a.Version
}

// Pods is Agent.Pods without its items, and its items that q keeps.
func (s state) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.podsLocked(q)
}

// podsLocked is Pods. Call it locked.
func (s state) podsLocked(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	head := s.a.Pods
	head.Items = nil
	kept := slices.DeleteFunc(slices.Clone(s.a.Pods.Items), func(p v1alpha1.PodInfo) bool { return !q.Match(p) })
	return head, func(yield func(v1alpha1.PodInfo) error) error {
		for _, p := range kept {
			if err := yield(p); err != nil {
				return err
			}
		}
		return nil
	}
}

// Pod is the item of Agent.Pods with the UID, as a Pod.
func (s state) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	i := slices.IndexFunc(s.a.Pods.Items, func(p v1alpha1.PodInfo) bool { return p.UID == uid })
	if i < 0 {
		return v1alpha1.PodInfo{}, fmt.Errorf("no pod with UID %q in any source or in the runtime of node %s", uid, s.a.Pods.NodeName)
	}
	info := s.a.Pods.Items[i]
	info.TypeMeta = v1alpha1.TypeMetaFor(v1alpha1.KindPod)
	return info, nil
}

// Snapshot is Pods at the event ring's last event.
func (s state) Snapshot(q *v1alpha1.PodQuery) (uint64, v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	head, items := s.podsLocked(q)
	return s.a.ringLocked().LastSeq(), head, items
}

func (state) Live() error  { return nil }
func (state) Ready() error { return nil }
