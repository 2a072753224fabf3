package pleg

// change is one event computed for a pod, before it is stamped and sent.
type change struct {
	typ     EventType
	id      string
	name    string
	sandbox bool
}

// smallPod is the number of sandboxes and containers up to which a pod's
// events are computed by scanning slices rather than with maps.
const smallPod = 64

// eventScratch holds maps reused across pods with many containers.
type eventScratch struct {
	// scanUpTo overrides smallPod when not zero; tests set it to -1 to
	// take the map path for every pod.
	scanUpTo int
	seen     map[string]struct{}
	old      map[string]plegState
	cur      map[string]plegState
}

// sameStates reports whether two snapshots list the same IDs in the same
// states in the same order; then no event can result.
func sameStates(a, b *podSnapshot) bool {
	return sameEntries(a.containers, b.containers) && sameEntries(a.sandboxes, b.sandboxes)
}

func sameEntries(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].plegState != b[i].plegState || a[i].id != b[i].id {
			return false
		}
	}
	return true
}

// lookup returns the PLEG state of id in s: containers are searched before
// sandboxes, and the first match wins, as in the kubelet.
func lookup(s *podSnapshot, ok bool, id string) plegState {
	if !ok {
		return plegNonExistent
	}
	for i := range s.containers {
		if s.containers[i].id == id {
			return s.containers[i].plegState
		}
	}
	for i := range s.sandboxes {
		if s.sandboxes[i].id == id {
			return s.sandboxes[i].plegState
		}
	}
	return plegNonExistent
}

// appendTransition appends the events the kubelet generates for one ID going
// from state from to state to.
func appendTransition(buf []change, from, to plegState, e *entry, sandbox bool) []change {
	if from == to {
		return buf
	}
	c := change{id: e.id, name: e.name, sandbox: sandbox}
	switch to {
	case plegRunning:
		c.typ = ContainerStarted
	case plegExited:
		c.typ = ContainerDied
	case plegUnknown:
		c.typ = ContainerChanged
	default: // gone
		if from != plegExited {
			c.typ = ContainerDied
			buf = append(buf, c)
		}
		c.typ = ContainerRemoved
	}
	return append(buf, c)
}

// computeEvents appends the events of one pod going from old to cur. Every ID
// is visited once, in the kubelet's order: the old containers, the old
// sandboxes, then the current containers and sandboxes not seen before.
func (sc *eventScratch) computeEvents(buf []change, old *podSnapshot, hasOld bool, cur *podSnapshot, hasCur bool) []change {
	if hasOld && hasCur && sameStates(old, cur) {
		return buf
	}
	var lists [4][]entry
	if hasOld {
		lists[0], lists[1] = old.containers, old.sandboxes
	}
	if hasCur {
		lists[2], lists[3] = cur.containers, cur.sandboxes
	}
	total := len(lists[0]) + len(lists[1]) + len(lists[2]) + len(lists[3])
	limit := smallPod
	if sc.scanUpTo != 0 {
		limit = sc.scanUpTo
	}
	if total > limit {
		return sc.computeLarge(buf, &lists)
	}
	for li := range lists {
		for i := range lists[li] {
			e := &lists[li][i]
			if seenBefore(&lists, li, i, e.id) {
				continue
			}
			buf = appendTransition(buf, lookup(old, hasOld, e.id), lookup(cur, hasCur, e.id), e, li%2 == 1)
		}
	}
	return buf
}

// seenBefore reports whether id occurs in the visiting order before position
// i of list li.
func seenBefore(lists *[4][]entry, li, i int, id string) bool {
	for l := 0; l <= li; l++ {
		n := len(lists[l])
		if l == li {
			n = i
		}
		for k := 0; k < n; k++ {
			if lists[l][k].id == id {
				return true
			}
		}
	}
	return false
}

// computeLarge is computeEvents for pods with many containers, with maps
// instead of quadratic scans.
func (sc *eventScratch) computeLarge(buf []change, lists *[4][]entry) []change {
	if sc.seen == nil {
		sc.seen = make(map[string]struct{})
		sc.old = make(map[string]plegState)
		sc.cur = make(map[string]plegState)
	}
	clear(sc.seen)
	clear(sc.old)
	clear(sc.cur)
	index := func(m map[string]plegState, l []entry) {
		for i := range l {
			if _, ok := m[l[i].id]; !ok {
				m[l[i].id] = l[i].plegState
			}
		}
	}
	// Containers before sandboxes: the first match wins, as in lookup.
	index(sc.old, lists[0])
	index(sc.old, lists[1])
	index(sc.cur, lists[2])
	index(sc.cur, lists[3])
	for li := range lists {
		for i := range lists[li] {
			e := &lists[li][i]
			if _, ok := sc.seen[e.id]; ok {
				continue
			}
			sc.seen[e.id] = struct{}{}
			from, ok := sc.old[e.id]
			if !ok {
				from = plegNonExistent
			}
			to, ok := sc.cur[e.id]
			if !ok {
				to = plegNonExistent
			}
			buf = appendTransition(buf, from, to, e, li%2 == 1)
		}
	}
	return buf
}
