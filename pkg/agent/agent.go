package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/source/apisource"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Shutdown bounds: the HTTP server drains for at most shutdownServerTimeout,
// and Run returns at most shutdownTimeout after its context ends, whatever
// the sources and the PLEG are doing.
const (
	shutdownServerTimeout = 700 * time.Millisecond
	shutdownTimeout       = 900 * time.Millisecond
)

// namedSource is a running source with the kubelet's name for it.
type namedSource struct {
	name string
	src  PodSource
}

// Agent is one node's podsrc: sources, merge, PLEG, event ring and HTTP API.
type Agent struct {
	// cfg is the agent's own configuration, from its flags.
	cfg     *Config
	decoder staticpod.Decoder
	// podConfig is the kubelet's pod config pipeline: the sources' updates
	// merged into ADD/UPDATE/DELETE/REMOVE/RECONCILE.
	podConfig *merge.PodConfig
	ring      *eventring.Ring
	metrics   *metrics
	pleg      *pleg.GenericPLEG
	runtime   *cri.Client
	sources   []namedSource
	stopping  chan struct{}
	// epoch identifies this agent process in its event stream: it is the
	// event ring's.
	epoch string
	// streamWriteTimeout bounds one write to an event stream.
	streamWriteTimeout time.Duration
	// streams and snapshots are the slots of the open event streams and
	// of the snapshot requests in progress.
	streams, snapshots slots

	// viewMu orders the view's changes with their events, so that a stream
	// that starts with a snapshot continues exactly after it. It guards
	// the admissions too, which follow the same notifications.
	viewMu     sync.Mutex
	view       *view
	admissions *admissions
}

// New returns an agent for cfg. decoder turns static pod manifests into pods
// exactly as the kubelet does.
func New(cfg *Config, decoder staticpod.Decoder) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	mergeSemantics, plegSemantics, err := semanticsFor(decoder)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		cfg:       cfg,
		decoder:   decoder,
		podConfig: merge.New(merge.Options{Mode: cfg.Mode, Semantics: mergeSemantics}),
		stopping:  make(chan struct{}),
		view:      newView(),

		admissions: newAdmissions(cfg.Admission),

		streamWriteTimeout: defaultStreamWriteTimeout,
		streams:            newSlots(cfg.Limits.MaxStreams),
		snapshots:          newSlots(cfg.Limits.MaxSnapshots),
	}
	a.ring = cfg.Events
	if a.ring == nil {
		a.ring = eventring.New(cfg.EventBuffer, nil)
	}
	a.epoch = a.ring.Epoch()
	a.metrics = newMetrics(a)
	if cfg.RuntimeSocket != "" {
		rt, err := cri.Dial(cfg.RuntimeSocket, cri.Options{})
		if err != nil {
			return nil, fmt.Errorf("--runtime-endpoint %s: %w", cfg.RuntimeEndpoint, err)
		}
		a.runtime = rt
		opts := cfg.PLEG
		opts.Semantics = plegSemantics
		opts.Handler = plegPublisher{ring: a.ring, metrics: a.metrics, labels: a.podLabels}
		if cfg.RelistOnRuntimeEvents {
			opts.RuntimeEvents = rt
		}
		a.pleg = pleg.New(rt, opts)
	}
	return a, nil
}

// Run starts the sources and the PLEG, serves the HTTP API on lis until ctx
// ends, then closes every stream and shuts the server down.
func (a *Agent) Run(ctx context.Context, lis net.Listener) error {
	logger := klog.FromContext(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if a.cfg.EnableProfiling {
		_, stop, err := a.serveProfiling(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := a.startSources(ctx); err != nil {
		return err
	}

	var wg sync.WaitGroup
	wg.Go(func() { a.consumeConfig(ctx) })
	for _, s := range a.sources {
		wg.Go(func() { s.src.Run(ctx) })
	}
	if a.pleg != nil {
		wg.Go(func() { a.pleg.Run(ctx) })
		wg.Go(func() { a.drainPLEG(ctx) })
	}

	srv := a.server()
	lis = newLimitListener(lis, a.cfg.Limits, a.metrics.refused)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(lis) }()
	logger.Info("Serving the podsrc API", "address", lis.Addr().String(), "node", a.cfg.Node.NodeName,
		"sources", a.podConfig.Sources(), "mode", a.cfg.Mode, "pleg", a.cfg.RuntimeEndpoint != "")

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
		err = fmt.Errorf("serving on %s: %w", lis.Addr(), err)
	}
	// Streams, sources and the PLEG stop together, while the server drains.
	stopped := time.Now()
	close(a.stopping)
	cancel()
	shutdownCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownServerTimeout)
	defer done()
	if serr := srv.Shutdown(shutdownCtx); serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		logger.Error(serr, "Shutting down the HTTP server")
		_ = srv.Close()
	}
	workers := make(chan struct{})
	go func() { wg.Wait(); close(workers) }()
	select {
	case <-workers:
	case <-time.After(shutdownTimeout - time.Since(stopped)):
		// Every part stops on its context; one that does not is a bug,
		// which must not hold the node's pod past its grace period.
		logger.Error(nil, "Sources or PLEG did not stop in time; exiting anyway", "after", time.Since(stopped))
	}
	if a.runtime != nil {
		_ = a.runtime.Close()
	}
	return err
}

// startSources registers every source that is on with the merge, so that
// readiness counts them from the start, and builds it.
func (a *Agent) startSources(ctx context.Context) error {
	add := func(name string, build func(chan<- merge.PodUpdate) (PodSource, error)) error {
		src, err := build(a.podConfig.Channel(ctx, name))
		if err != nil {
			return fmt.Errorf("starting the %s source: %w", name, err)
		}
		a.sources = append(a.sources, namedSource{name: name, src: src})
		return nil
	}
	sc, node := a.cfg.Sources, a.cfg.Node
	if opts, on := sc.FileOptions(node, a.decoder); on {
		if err := add(v1alpha1.SourceFile, func(ch chan<- merge.PodUpdate) (PodSource, error) {
			opts.Updates = ch
			return source.NewFile(opts)
		}); err != nil {
			return err
		}
	}
	if opts, on := sc.URLOptions(node, a.decoder); on {
		if err := add(v1alpha1.SourceHTTP, func(ch chan<- merge.PodUpdate) (PodSource, error) {
			opts.Updates = ch
			return source.NewURL(opts)
		}); err != nil {
			return err
		}
	}
	opts, on, err := apisource.OptionsFor(sc, node)
	if err != nil {
		return fmt.Errorf("starting the %s source: %w", v1alpha1.SourceAPI, err)
	}
	if on {
		if err := add(v1alpha1.SourceAPI, func(ch chan<- merge.PodUpdate) (PodSource, error) {
			opts.Updates = ch
			opts.NodeChanged = a.nodeChanged
			return apisource.NewAPI(opts)
		}); err != nil {
			return err
		}
	}
	return nil
}

// consumeConfig takes the merge's notifications, as the kubelet's sync loop
// does, into the view and the event sequence.
func (a *Agent) consumeConfig(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-a.podConfig.Updates():
			a.viewMu.Lock()
			a.view.apply(u)
			verdicts := a.admissions.apply(u)
			a.ring.Publish(configEvent(u, verdicts))
			a.viewMu.Unlock()
			a.metrics.configEvent(u)
			a.metrics.admissions(verdicts)
		}
	}
}

// nodeChanged takes the kubelet's Node object from the API source, for the
// admit handlers.
func (a *Agent) nodeChanged(n *v1.Node) {
	a.viewMu.Lock()
	defer a.viewMu.Unlock()
	a.admissions.setNode(n)
}

// podLabels returns the labels of the configured pod with the UID, nil for
// a pod no source configures.
func (a *Agent) podLabels(uid types.UID) map[string]string {
	a.viewMu.Lock()
	defer a.viewMu.Unlock()
	if s, ok := a.view.get(uid); ok {
		return s.pod.Labels
	}
	return nil
}

// drainPLEG empties the channel the kubelet would read, so that the PLEG
// counts its events sent as the kubelet's would. The agent itself takes the
// events through plegPublisher, as they are computed.
func (a *Agent) drainPLEG(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.pleg.Watch():
		}
	}
}
