package pleg

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/podsrc/podsrc/pkg/cri"
)

// GenericPLEG relists the runtime periodically and turns the differences
// between relists into pod lifecycle events, exactly as the kubelet's generic
// PLEG does. Run drives it; every other method may be called concurrently.
//
// It has no single-pod relist (the kubelet's RequestRelist, on by default
// since v1.36 through PLEGOnDemandRelist) and no RequestReinspect: the
// kubelet's pod workers ask for both, and podsrc runs none, so every event
// comes from a periodic relist.
type GenericPLEG struct {
	runtime cri.Runtime
	opts    Options
	clock   clock.Clock
	cache   *Cache
	// failures are the relists that failed since the last good one.
	failures relistFailures

	// lastRelist is the start of the last successful relist.
	lastRelist atomic.Pointer[time.Time]
	// listed is what the last successful relist listed, for Pods.
	listed atomic.Pointer[listing]
	// follow describes how Run follows the runtime's events.
	follow eventFollow

	// relistMu serializes relists and guards the fields below.
	relistMu  sync.Mutex
	records   podRecords
	reinspect map[types.UID]struct{}
	seq       uint64
	eventSeq  uint64
	changes   []change
	scratch   eventScratch
	// channelLen is how many events the current relist put on the
	// kubelet's channel, which its sync loop is taken to read empty
	// between two relists: a relist sends at most ChannelCapacity events
	// and drops the rest.
	channelLen int
}

// listing is the result of one successful relist's two List calls.
type listing struct {
	time       time.Time
	sandboxes  []*runtimeapi.PodSandbox
	containers []*runtimeapi.Container
}

// New returns a PLEG over runtime. Nothing happens until Run or Relist.
func New(runtime cri.Runtime, opts Options) *GenericPLEG {
	opts = opts.withDefaults()
	return &GenericPLEG{
		runtime:   runtime,
		opts:      opts,
		clock:     opts.Clock,
		cache:     newCache(),
		records:   newPodRecords(),
		reinspect: make(map[types.UID]struct{}),
	}
}

// Cache returns the pod status cache.
func (g *GenericPLEG) Cache() *Cache { return g.cache }

// RuntimeEvents describes how Run follows the runtime's container events.
func (g *GenericPLEG) RuntimeEvents() RuntimeEventsStats { return g.follow.snapshot() }

// Relist lists the runtime once, computes the events, inspects the pods that
// changed and sends the events. Run calls it periodically; calling it
// directly is for tests and tools. It returns the error that made the relist
// fail; a failed pod inspection does not fail the relist.
func (g *GenericPLEG) Relist(ctx context.Context) error {
	g.relistMu.Lock()
	defer g.relistMu.Unlock()
	logger := klog.FromContext(ctx)

	g.seq++
	g.channelLen = 0
	start := g.clock.Now()
	sum := RelistSummary{Seq: g.seq, Start: start}
	var interval time.Duration
	last := g.relistTime()
	if !last.IsZero() {
		interval = start.Sub(last)
		sum.IntervalSeconds = interval.Seconds()
	}
	g.opts.Observer.RelistStarted(interval, !last.IsZero())

	t := g.clock.Now()
	sandboxes, err := g.runtime.ListPodSandbox(ctx, nil)
	d := g.clock.Since(t)
	sum.ListSandboxesSeconds = d.Seconds()
	g.opts.Observer.CallDone(CallListPodSandbox, d, err != nil)
	if err != nil {
		return g.failed(ctx, sum, start, fmt.Errorf("relist: %w", err))
	}
	t = g.clock.Now()
	containers, err := g.runtime.ListContainers(ctx, nil)
	d = g.clock.Since(t)
	sum.ListContainersSeconds = d.Seconds()
	g.opts.Observer.CallDone(CallListContainers, d, err != nil)
	if err != nil {
		return g.failed(ctx, sum, start, fmt.Errorf("relist: %w", err))
	}

	g.lastRelist.Store(&start)
	g.records.begin()
	group(&g.records, sandboxes, containers)
	g.listed.Store(&listing{time: start, sandboxes: sandboxes, containers: containers})

	var counts RelistCounts
	for _, r := range g.records.byUID {
		if g.records.hasCurrent(r) {
			counts.add(&r.cur)
		}
		g.reconcile(ctx, r, start, &sum)
	}

	sum.Pods, sum.Sandboxes = counts.Pods, counts.Sandboxes
	sum.Containers = counts.Created + counts.Running + counts.Exited + counts.Unknown
	d = g.clock.Since(start)
	sum.DurationSeconds = d.Seconds()
	g.failures.reset()
	g.opts.Observer.RelistDone(sum, d, counts)
	logger.V(5).Info("Relisted", "seq", sum.Seq, "pods", sum.Pods, "events", sum.Events, "duration", d)
	return nil
}

// add counts one listed pod.
func (c *RelistCounts) add(p *podSnapshot) {
	c.Pods++
	c.Sandboxes += len(p.sandboxes)
	for i := range p.sandboxes {
		if p.sandboxes[i].state == StateRunning {
			c.RunningPods++
			break
		}
	}
	for i := range p.containers {
		switch p.containers[i].state {
		case StateCreated:
			c.Created++
		case StateRunning:
			c.Running++
		case StateExited:
			c.Exited++
		default:
			c.Unknown++
		}
	}
}

// failed records a relist whose listing failed. The records stay as they
// were, so that the next successful relist reports what changed meanwhile.
func (g *GenericPLEG) failed(ctx context.Context, sum RelistSummary, start time.Time, err error) error {
	d := g.clock.Since(start)
	sum.DurationSeconds = d.Seconds()
	sum.Error = err.Error()
	g.failures.add(sum.Error)
	g.opts.Observer.RelistDone(sum, d, RelistCounts{})
	klog.FromContext(ctx).Error(err, "Unable to retrieve pods")
	return err
}

// reconcile computes the events of one pod, inspects it when it changed or
// awaits reinspection, updates the cache and the record, and sends the
// events, like the kubelet's reconcilePodRecord.
func (g *GenericPLEG) reconcile(ctx context.Context, r *podRecord, ts time.Time, sum *RelistSummary) {
	hasCur := g.records.hasCurrent(r)
	g.changes = g.scratch.computeEvents(g.changes[:0], &r.old, r.hasOld, &r.cur, hasCur)
	_, reinspect := g.reinspect[r.uid]
	delete(g.reinspect, r.uid)
	if len(g.changes) == 0 && !reinspect {
		if !r.hasOld && !hasCur {
			// Nothing reported and nothing listed: the kubelet keeps
			// such an empty record forever; it can never yield an event.
			delete(g.records.byUID, r.uid)
		}
		return
	}
	sum.Events += len(g.changes)

	name, namespace := r.cur.name, r.cur.namespace
	if !hasCur {
		name, namespace = r.old.name, r.old.namespace
	}
	var status *PodStatus
	// cached is the pod's cache entry as this relist leaves it, handed
	// with each of its events; nil once the runtime no longer has the pod.
	var cached *CachedPod
	if !hasCur {
		g.cache.delete(r.uid)
	} else {
		sum.Inspected++
		start := g.clock.Now()
		st, calls, err := g.inspect(ctx, r, ts)
		d := g.clock.Since(start)
		in := PodInspection{Relist: sum.Seq, Time: ts, PodID: r.uid, Name: name, Namespace: namespace, DurationSeconds: d.Seconds(), Calls: calls}
		if err != nil {
			in.Error = err.Error()
			sum.InspectionFailures++
			g.opts.Observer.PodInspected(in)
			cached = g.cache.setError(r.uid, err, g.clock.Now())
			g.reinspect[r.uid] = struct{}{}
			klog.FromContext(ctx).V(4).Info("Ignoring events for pod, will reinspect", "pod", klog.KRef(namespace, name), "podUID", r.uid, "err", err)
			for _, c := range g.changes {
				g.deliver(g.newEvent(r.uid, name, namespace, c, sum.Seq, ts), OutcomeInspectionFailed, cached)
			}
			return
		}
		st.InspectedAt = g.clock.Now()
		g.opts.Observer.PodInspected(in)
		cached = g.cache.set(st)
		status = st
	}
	if len(g.changes) == 0 && g.opts.Semantics.syncsAfterReinspection() {
		g.changes = append(g.changes, change{typ: PodSync})
	}
	g.records.update(r)

	logger := klog.FromContext(ctx)
	for _, c := range g.changes {
		ev := g.newEvent(r.uid, name, namespace, c, sum.Seq, ts)
		if ev.Type == ContainerDied && status != nil {
			for _, cs := range status.Containers {
				if cs.ID == ev.Data && cs.State == StateExited {
					code := cs.ExitCode
					ev.ExitCode = &code
					logger.V(2).Info("Container finished", "podUID", ev.ID, "containerID", cs.ID, "exitCode", cs.ExitCode)
				}
			}
		}
		if !ev.KubeletSends {
			g.deliver(ev, OutcomeNotSent, cached)
			continue
		}
		if g.channelLen == g.opts.ChannelCapacity {
			g.deliver(ev, OutcomeDropped, cached)
			logger.Error(nil, "Event channel is full, discarding event", "podUID", ev.ID, "type", ev.Type, "data", ev.Data)
			continue
		}
		g.channelLen++
		g.deliver(ev, OutcomeSent, cached)
	}
}

// newEvent stamps a computed change.
func (g *GenericPLEG) newEvent(uid types.UID, name, namespace string, c change, relist uint64, ts time.Time) *PodLifecycleEvent {
	g.eventSeq++
	return &PodLifecycleEvent{
		ID:            uid,
		Type:          c.typ,
		Data:          c.id,
		KubeletSends:  c.typ.KubeletSends(),
		Sandbox:       c.sandbox,
		PodName:       name,
		PodNamespace:  namespace,
		ContainerName: c.name,
		Seq:           g.eventSeq,
		Relist:        relist,
		Time:          ts,
	}
}

// deliver tells the observer of a computed event with its outcome and hands
// it to the handler with its pod's cache entry.
func (g *GenericPLEG) deliver(ev *PodLifecycleEvent, outcome string, cached *CachedPod) {
	r := ComputedEvent{PodLifecycleEvent: *ev, Outcome: outcome, Cached: cached}
	g.opts.Observer.EventComputed(r)
	if g.opts.Handler != nil {
		g.opts.Handler.HandleEvent(r)
	}
}
