package pleg

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/cri"
)

// How Run follows the runtime's container events (Options.RuntimeEvents).
const (
	// RuntimeEventsOff: not asked to follow them.
	RuntimeEventsOff = "off"
	// RuntimeEventsFollowing: the stream is open, or being opened.
	RuntimeEventsFollowing = "following"
	// RuntimeEventsBroken: the stream ended; it is opened again after the
	// relists' backoff.
	RuntimeEventsBroken = "broken"
	// RuntimeEventsUnsupported: the runtime serves no container events; the
	// stream is tried again every unsupportedRetry.
	RuntimeEventsUnsupported = "unsupported"
)

// Retry timing of the event stream: a broken stream is opened again after
// a backoff that starts at eventsRetryBase and doubles up to eventsRetryMax,
// or MaxBackoff if lower (it broke because the runtime restarted, so it is
// soon back, whatever the relist period); a runtime that
// served no container events is asked again every unsupportedRetry (it may
// have been upgraded in place).
const (
	eventsRetryBase  = 100 * time.Millisecond
	eventsRetryMax   = 8 * time.Second
	unsupportedRetry = time.Minute
)

// RuntimeEventsStats describes how the PLEG follows the runtime's container
// events.
type RuntimeEventsStats struct {
	// State is one of the RuntimeEvents* constants.
	State string
	// Error is why the stream last ended, while it is broken or unsupported.
	Error string
	// Events counts the container events received; Relists the relists
	// they brought forward.
	Events  uint64
	Relists uint64
}

// eventFollow keeps RuntimeEventsStats up to date.
type eventFollow struct {
	mu sync.Mutex
	s  RuntimeEventsStats
}

func (f *eventFollow) event() {
	f.mu.Lock()
	f.s.Events++
	f.mu.Unlock()
}

func (f *eventFollow) relistAsked() {
	f.mu.Lock()
	f.s.Relists++
	f.mu.Unlock()
}

// set records the state, and returns whether it changed.
func (f *eventFollow) set(state string, err error) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	changed := f.s.State != state
	f.s.State, f.s.Error = state, ""
	if err != nil {
		f.s.Error = err.Error()
	}
	return changed
}

func (f *eventFollow) snapshot() RuntimeEventsStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.s
	if s.State == "" {
		s.State = RuntimeEventsOff
	}
	return s
}

// eventsBackoff returns the pauses before opening a broken event stream
// again, one Step per break: eventsRetryBase, doubled after each further
// one, capped at eventsRetryMax or MaxBackoff if lower, without jitter.
// MaxBackoff is at least the relist period, which must not slow the reopening:
// while the stream is broken, changes wait for the periodic relist.
func (o Options) eventsBackoff() wait.Backoff {
	return wait.Backoff{Duration: eventsRetryBase, Factor: 2, Cap: min(o.MaxBackoff, eventsRetryMax), Steps: math.MaxInt32}
}

// followRuntimeEvents follows Options.RuntimeEvents until ctx is done, and
// puts a value on wake (without waiting) for each container event. A stream
// that breaks, as it does when the runtime restarts, is opened again after a
// backoff, which starts over once a stream lasted as long as its cap.
func (g *GenericPLEG) followRuntimeEvents(ctx context.Context, wake chan<- struct{}) {
	logger := klog.FromContext(ctx)
	backoff := g.opts.eventsBackoff()
	// unsupportedLogged keeps a runtime without events to one line of log.
	unsupportedLogged := false
	for {
		opened := g.clock.Now()
		if g.follow.set(RuntimeEventsFollowing, nil) {
			logger.V(2).Info("Following the runtime's container events")
		}
		err := g.opts.RuntimeEvents.WatchContainerEvents(ctx, func(*runtimeapi.ContainerEventResponse) {
			g.follow.event()
			select {
			case wake <- struct{}{}:
			default:
			}
		})
		if ctx.Err() != nil {
			return
		}
		var retry time.Duration
		if cri.EventsUnsupported(err) {
			retry = unsupportedRetry
			g.follow.set(RuntimeEventsUnsupported, err)
			if !unsupportedLogged {
				unsupportedLogged = true
				logger.Info("The runtime serves no container events; relisting every period only", "err", err, "retryEvery", retry)
			}
		} else {
			if err == nil {
				err = errors.New("the runtime ended the container event stream")
			}
			if g.clock.Since(opened) >= backoff.Cap {
				backoff = g.opts.eventsBackoff()
			}
			retry = backoff.Step()
			g.follow.set(RuntimeEventsBroken, err)
			logger.V(2).Info("The runtime's container event stream ended; relisting every period until it is open again", "err", err, "retryIn", retry)
		}
		t := g.clock.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}
