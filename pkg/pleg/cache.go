package pleg

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// SandboxStatus is what the runtime reported about one pod sandbox.
type SandboxStatus struct {
	ID        string
	State     string
	Attempt   uint32
	CreatedAt time.Time
	// IPs are the sandbox's primary and additional IPs as reported.
	IPs []string
}

// ContainerStatus is what the runtime reported about one container, as the
// kubelet reads it: start time unless created, exit code, reason, message
// and finish time only when exited.
type ContainerStatus struct {
	ID           string
	Name         string
	State        ContainerState
	Attempt      uint32
	SandboxID    string
	Image        string
	ImageRef     string
	RestartCount int
	CreatedAt    time.Time
	StartedAt    time.Time
	FinishedAt   time.Time
	ExitCode     int
	Reason       string
	Message      string
}

// PodStatus is one inspection of a pod, the counterpart of the kubelet's
// cached kubecontainer.PodStatus.
type PodStatus struct {
	ID        types.UID
	Name      string
	Namespace string
	// IPs come from the newest sandbox when it is ready; the previous IPs
	// are kept when no sandbox is ready any more, as the kubelet does.
	IPs []string
	// Sandboxes are newest first; Containers newest first.
	Sandboxes  []SandboxStatus
	Containers []ContainerStatus
	// Timestamp is the start of the relist whose listing was inspected.
	Timestamp time.Time
	// InspectedAt is when the inspection ended.
	InspectedAt time.Time
}

// CachedPod is the cache entry of one pod.
type CachedPod struct {
	ID types.UID
	// Status is the last successful inspection; nil when every inspection
	// so far failed.
	Status *PodStatus
	// Error is set when the latest inspection failed (the kubelet then
	// caches the error instead of a status); ErrorTime says when.
	Error     string
	ErrorTime time.Time
}

// Cache holds the pod statuses the PLEG inspected, by pod UID. Entries are
// replaced, never modified, so what Get returns may be kept and read freely
// but must not be modified. Safe for concurrent use.
type Cache struct {
	mu   sync.RWMutex
	pods map[types.UID]*CachedPod
}

func newCache() *Cache { return &Cache{pods: make(map[types.UID]*CachedPod)} }

// Get returns the entry of a pod.
func (c *Cache) Get(uid types.UID) (CachedPod, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.pods[uid]
	if !ok {
		return CachedPod{}, false
	}
	return *e, true
}

// List returns every entry, sorted by namespace, name and UID.
func (c *Cache) List() []CachedPod {
	c.mu.RLock()
	out := make([]CachedPod, 0, len(c.pods))
	for _, e := range c.pods {
		out = append(out, *e)
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b CachedPod) int {
		an, ans := a.names()
		bn, bns := b.names()
		return cmp.Or(cmp.Compare(ans, bns), cmp.Compare(an, bn), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func (e *CachedPod) names() (string, string) {
	if e.Status == nil {
		return "", ""
	}
	return e.Status.Name, e.Status.Namespace
}

// lastIPs returns the IPs to keep for a pod whose new status has none: the
// cached ones, unless the cached entry is an error.
func (c *Cache) lastIPs(uid types.UID) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.pods[uid]
	if !ok || e.Error != "" || e.Status == nil {
		return nil
	}
	return e.Status.IPs
}

// set caches a pod's status and returns its new entry.
func (c *Cache) set(s *PodStatus) *CachedPod {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &CachedPod{ID: s.ID, Status: s}
	c.pods[s.ID] = e
	return e
}

// setError caches a pod's failed inspection, keeping its last status, and
// returns its new entry.
func (c *Cache) setError(uid types.UID, err error, now time.Time) *CachedPod {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &CachedPod{ID: uid, Error: err.Error(), ErrorTime: now}
	if old, ok := c.pods[uid]; ok {
		e.Status = old.Status
	}
	c.pods[uid] = e
	return e
}

func (c *Cache) delete(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pods, uid)
}
