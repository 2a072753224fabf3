package merge

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// DefaultBuffer is the capacity of the output channel, as in the kubelet.
const DefaultBuffer = 50

// Options configure a PodConfig. The zero value is the kubelet's of today:
// incremental notifications with v1.36 semantics.
type Options struct {
	// Mode is the notification mode.
	Mode Mode
	// Semantics selects the kubelet version to follow where versions differ.
	Semantics Semantics
	// EventRecorder receives the events the kubelet would record (duplicate pod
	// names). Nil drops them.
	EventRecorder EventRecorder
	// Clock stamps the config.seen annotation and the statistics. Nil is the
	// real clock.
	Clock clock.PassiveClock
	// Buffer is the capacity of the output channel; 0 means DefaultBuffer.
	Buffer int
	// Took, when set, is given each update the merge takes, with its
	// source's name, in the order the updates are merged (one at a time,
	// whatever the source), before it is merged. It must not block.
	Took func(source string, u PodUpdate)
}

// PodConfig is the mux in front of the pod storage: every source gets a
// channel, updates from all of them are merged one at a time, and the
// notifications come out of Updates in order. The storage is reached only
// through the channels, so every source merged is a registered one, which
// Sources and Ready count.
type PodConfig struct {
	store *storage

	updates chan PodUpdate

	mu      sync.Mutex
	sources map[string]chan PodUpdate
}

// New returns a PodConfig with no sources.
func New(o Options) *PodConfig {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	c := &PodConfig{
		updates: make(chan PodUpdate, o.Buffer),
		sources: make(map[string]chan PodUpdate),
	}
	c.store = newStorage(o, c.send)
	return c
}

// send hands one notification to the output channel, or gives up when ctx ends.
func (c *PodConfig) send(ctx context.Context, u PodUpdate) error {
	select {
	case c.updates <- u:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Channel registers a source and returns the channel it sends its updates
// on; asking again for the same source returns the same channel. Updates are
// merged until ctx ends or the source closes the channel; the end of ctx
// also abandons a merge whose output nobody reads. The Source field of
// updates sent on the channel is ignored.
func (c *PodConfig) Channel(ctx context.Context, source string) chan<- PodUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.sources[source]; ok {
		return ch
	}
	ch := make(chan PodUpdate)
	c.sources[source] = ch
	go c.listen(ctx, source, ch)
	return ch
}

// listen merges the updates of one source until ctx ends.
func (c *PodConfig) listen(ctx context.Context, source string, ch <-chan PodUpdate) {
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-ch:
			if !ok {
				return
			}
			if err := c.store.merge(ctx, source, u); err != nil {
				klog.FromContext(ctx).V(2).Info("Stopped merging updates", "source", source, "err", err)
				return
			}
		}
	}
}

// Merge merges one update of the registered source at once, as a send on
// its channel would, and returns when the notifications it makes are on
// Updates (they must fit its buffer, or be read meanwhile), or ctx's error
// if ctx ends first. Replaying a recording of the merge's inputs
// (Options.Took) through it makes the same notifications, in the same
// order, as the recorded merge made.
func (c *PodConfig) Merge(ctx context.Context, source string, u PodUpdate) error {
	c.mu.Lock()
	_, ok := c.sources[source]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("merging an update of %s: not a registered source", source)
	}
	return c.store.merge(ctx, source, u)
}

// Register registers sources without listening to their channels, for a
// PodConfig that takes their updates through Merge only.
func (c *PodConfig) Register(sources ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range sources {
		if _, ok := c.sources[s]; !ok {
			c.sources[s] = make(chan PodUpdate)
		}
	}
}

// Updates returns the channel of merged notifications.
func (c *PodConfig) Updates() <-chan PodUpdate {
	return c.updates
}

// Sources returns the sorted names of the registered sources.
func (c *PodConfig) Sources() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.sources))
}

// seenAllSources answers the kubelet's question: are all registered sources
// in seen, and has every one of them sent a SET?
func (c *PodConfig) seenAllSources(seen sets.Set[string]) bool {
	registered := c.Sources()
	return seen.HasAll(registered...) && c.store.hasSeen(registered...)
}

// Ready reports whether every registered source has sent a SET.
func (c *PodConfig) Ready() bool {
	return c.store.hasSeen(c.Sources()...)
}

// HasSeen reports whether every named source has sent a SET.
func (c *PodConfig) HasSeen(sources ...string) bool { return c.store.hasSeen(sources...) }

// seenSources returns the sorted names of the sources that have sent a SET.
func (c *PodConfig) seenSources() []string { return c.store.seenSources() }

// Stats returns the counters of every source that has sent an update,
// sorted by source name.
func (c *PodConfig) Stats() []SourceStats { return c.store.sourceStats() }
