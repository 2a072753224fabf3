package fakeagent

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/serve"
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

func (s state) KubeletConfig() v1alpha1.KubeletConfig {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.a.KubeletConfig
}

// Pods is Agent.Pods without its items, and its items that q keeps.
func (s state) Pods(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return s.podsLocked(q)
}

// podsLocked is Pods. Call it locked.
func (s state) podsLocked(q *v1alpha1.PodQuery) (v1alpha1.PodList, func(yield func(v1alpha1.PodInfo) error) error) {
	return serve.ListPods(s.a.Pods, q)
}

// Pod is the item of Agent.Pods with the UID, as a Pod.
func (s state) Pod(uid types.UID) (v1alpha1.PodInfo, error) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	return serve.FindPod(s.a.Pods, uid, "")
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
