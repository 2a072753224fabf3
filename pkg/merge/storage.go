package merge

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// entry is a stored pod with the fingerprint, the origin and the warnings
// of the input last merged into it.
type entry struct {
	pod         *v1.Pod
	fingerprint string
	origin      string
	warnings    []string
}

// storage keeps every source's pods by UID, merges incoming updates into
// them and emits what changed according to the notification mode. Only the
// PodConfig in front of it merges into it, so that every source it merges
// is a registered one.
type storage struct {
	mode      Mode
	semantics Semantics
	recorder  EventRecorder
	clock     clock.PassiveClock
	emit      func(context.Context, PodUpdate) error
	took      func(string, PodUpdate)

	// mergeLock serialises merges, so that their output stays in order.
	mergeLock sync.Mutex
	names     fullNames
	spare     map[string]map[types.UID]entry

	// mu guards what readers may look at while a merge runs.
	mu    sync.RWMutex
	pods  map[string]map[types.UID]entry
	seen  map[string]struct{}
	stats map[string]*SourceStats
}

// newStorage returns an empty storage that hands its output to emit.
func newStorage(o Options, emit func(context.Context, PodUpdate) error) *storage {
	return &storage{
		mode:      o.Mode,
		semantics: o.Semantics,
		recorder:  o.EventRecorder,
		clock:     o.Clock,
		took:      o.Took,
		emit:      emit,
		spare:     make(map[string]map[types.UID]entry),
		pods:      make(map[string]map[types.UID]entry),
		seen:      make(map[string]struct{}),
		stats:     make(map[string]*SourceStats),
	}
}

// changes collects the pods of one merge, with their origins, by what
// happened to them.
type changes struct {
	adds, updates, deletes, removes, reconciles []entry
}

// merge merges one update from the named source and emits the resulting
// notifications, in the kubelet's order, before it returns. It returns the
// context's error when the context ends while the output is not read.
func (s *storage) merge(ctx context.Context, source string, u PodUpdate) error {
	s.mergeLock.Lock()
	defer s.mergeLock.Unlock()
	if s.took != nil {
		s.took(source, u)
	}

	s.mu.Lock()
	_, seenBefore := s.seen[source]
	c := s.apply(ctx, source, u)
	_, seenNow := s.seen[source]
	firstSet := !seenBefore && seenNow
	out := s.notifications(source, c, firstSet)
	s.mu.Unlock()

	for _, n := range out {
		if err := s.emit(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// apply applies the update to the source's pods. It runs with mu held.
func (s *storage) apply(ctx context.Context, source string, u PodUpdate) changes {
	logger := klog.FromContext(ctx)
	var c changes
	now := s.clock.Now()
	current := s.pods[source]
	if current == nil {
		current = make(map[types.UID]entry)
	}

	switch u.Op {
	case Add, Update, Delete:
		logger.V(4).Info("Merging pods from source", "op", u.Op, "source", source, "pods", klog.KObjSlice(u.Pods))
		s.mergePods(logger, source, u, now, current, current, &c)
	case Remove:
		logger.V(4).Info("Removing pods from source", "source", source, "pods", klog.KObjSlice(u.Pods))
		for _, p := range u.Pods {
			if e, ok := current[p.UID]; ok {
				delete(current, p.UID)
				c.removes = append(c.removes, e)
			}
		}
	case Set:
		logger.V(4).Info("Setting pods for source", "source", source, "pods", len(u.Pods))
		s.seen[source] = struct{}{}
		next := s.spare[source]
		if next == nil {
			next = make(map[types.UID]entry, len(u.Pods))
		}
		s.mergePods(logger, source, u, now, current, next, &c)
		for uid, e := range current {
			if _, kept := next[uid]; !kept {
				c.removes = append(c.removes, e)
			}
		}
		// Removed pods are sorted so that REMOVE does not depend on map order.
		slices.SortFunc(c.removes, func(a, b entry) int { return strings.Compare(string(a.pod.UID), string(b.pod.UID)) })
		clear(current)
		s.spare[source] = current
		current = next
	default:
		logger.Info("Ignoring update with an unknown operation", "op", u.Op, "source", source)
	}
	s.pods[source] = current
	s.count(source, u, now, len(current), c)
	return c
}

// mergePods merges the update's pods, looked up in old, into into; old and
// into are the same map except for a SET. A UID that appears twice is
// merged twice, exactly as the kubelet does it.
//
// The kubelet annotates and changes the pods it keeps in place. The merge
// never changes a pod: what a source sends is immutable from then on (see
// PodUpdate), and so is every pod the merge stores and emits. A new pod is
// stored as a shallow copy whose annotations are its own, with the merge's
// config.source and config.seen; a change replaces the stored pod with
// another shallow copy that takes the changed parts of the incoming pod.
// Spec, status and everything else are shared with the source, so a pod
// costs one copy of its metadata struct and annotations, and comparing or
// skipping a pod (fingerprint unchanged) costs no copy at all.
//
// Every pod the update adds gets the same first-seen time, taken once from
// the clock; the kubelet reads the clock for each new pod, so its values
// differ by the nanoseconds between two pods of one update.
func (s *storage) mergePods(logger klog.Logger, source string, u PodUpdate, now time.Time, old, into map[types.UID]entry, c *changes) {
	s.names.reset()
	seenAt := ""
	for i, pod := range u.Pods {
		if !s.names.insert(pod) {
			logger.Info("Pod failed validation due to duplicate pod name, ignoring", "index", i, "pod", klog.KObj(pod), "source", source)
			if s.recorder != nil {
				s.recorder.Eventf(pod, v1.EventTypeWarning, EventReasonFailedValidation,
					"Error validating pod %s from %s due to duplicate pod name %q, ignoring", podDescription(pod), source, pod.Name)
			}
			continue
		}
		fingerprint, origin := "", ""
		if i < len(u.Fingerprints) {
			fingerprint = u.Fingerprints[i]
		}
		if i < len(u.Origins) {
			origin = u.Origins[i]
		}
		var warnings []string
		if i < len(u.Warnings) {
			warnings = u.Warnings[i]
		}
		if stored, ok := old[pod.UID]; ok {
			e := entry{pod: stored.pod, fingerprint: fingerprint, origin: origin, warnings: warnings}
			if fingerprint == "" || fingerprint != stored.fingerprint {
				var kind change
				kind, e.pod = s.semantics.apply(stored.pod, pod)
				switch kind {
				case needsUpdate:
					c.updates = append(c.updates, e)
				case needsReconcile:
					c.reconciles = append(c.reconciles, e)
				case needsDelete:
					c.deletes = append(c.deletes, e)
				}
			}
			old[pod.UID], into[pod.UID] = e, e
			continue
		}
		if seenAt == "" {
			seenAt = now.Format(SeenTimeLayout)
		}
		logger.V(4).Info("Receiving a new pod", "pod", klog.KObj(pod), "source", source)
		added := *pod
		added.Annotations = withLocalAnnotations(pod.Annotations, source, seenAt)
		e := entry{pod: &added, fingerprint: fingerprint, origin: origin, warnings: warnings}
		into[pod.UID] = e
		c.adds = append(c.adds, e)
	}
}

// notifications turns one merge's changes into the updates the mode emits,
// in the kubelet's order. It runs with mu held; the pods are the stored
// ones, which nobody changes.
func (s *storage) notifications(source string, c changes, firstSet bool) []PodUpdate {
	var out []PodUpdate
	add := func(op Op, entries []entry) {
		out = append(out, notification(op, source, entries))
	}
	snapshot := func() {
		out = append(out, notification(Set, source, s.mergedLocked()))
	}
	switch s.mode {
	case Incremental:
		if len(c.removes) > 0 {
			add(Remove, c.removes)
		}
		if len(c.adds) > 0 {
			add(Add, c.adds)
		}
		if len(c.updates) > 0 {
			add(Update, c.updates)
		}
		if len(c.deletes) > 0 {
			add(Delete, c.deletes)
		}
		if firstSet && len(c.adds) == 0 && len(c.updates) == 0 && len(c.deletes) == 0 {
			// An empty ADD tells the consumer the source is ready.
			add(Add, nil)
		}
		if len(c.reconciles) > 0 {
			add(Reconcile, c.reconciles)
		}
	case SnapshotAndUpdates:
		if len(c.removes) > 0 || len(c.adds) > 0 || firstSet {
			snapshot()
		}
		if len(c.updates) > 0 {
			add(Update, c.updates)
		}
		if len(c.deletes) > 0 {
			add(Delete, c.deletes)
		}
	case Snapshot:
		if len(c.updates) > 0 || len(c.deletes) > 0 || len(c.adds) > 0 || len(c.removes) > 0 || firstSet {
			snapshot()
		}
	}
	return out
}

// notification is the update op of the source's entries: their pods, their
// origins when one of them has one, and their warnings likewise.
func notification(op Op, source string, entries []entry) PodUpdate {
	u := PodUpdate{Op: op, Source: source, Pods: make([]*v1.Pod, len(entries))}
	for i, e := range entries {
		u.Pods[i] = e.pod
		if e.origin != "" && u.Origins == nil {
			u.Origins = make([]string, len(entries))
		}
	}
	if u.Origins != nil {
		for i, e := range entries {
			u.Origins[i] = e.origin
		}
	}
	for i, e := range entries {
		if len(e.warnings) == 0 {
			continue
		}
		if u.Warnings == nil {
			u.Warnings = make([][]string, len(entries))
		}
		u.Warnings[i] = e.warnings
	}
	return u
}

// mergedLocked returns every source's entries. It runs with mu held.
func (s *storage) mergedLocked() []entry {
	n := 0
	for _, pods := range s.pods {
		n += len(pods)
	}
	out := make([]entry, 0, n)
	for _, pods := range s.pods {
		for _, e := range pods {
			out = append(out, e)
		}
	}
	return out
}
