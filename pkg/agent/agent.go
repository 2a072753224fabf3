package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/cri"
	"github.com/podsrc/podsrc/pkg/eventring"
	"github.com/podsrc/podsrc/pkg/journal"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/pleg"
	"github.com/podsrc/podsrc/pkg/pleg/plegstats"
	"github.com/podsrc/podsrc/pkg/serve"
	"github.com/podsrc/podsrc/pkg/source"
	"github.com/podsrc/podsrc/pkg/source/apisource"
	"github.com/podsrc/podsrc/pkg/staticpod"
	"github.com/podsrc/podsrc/pkg/syncloop"
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
	cfg *Config
	// kubelet is the kubelet minor the agent reproduces, and decoder its
	// static pod decoding.
	kubelet kubeletminor.Minor
	decoder staticpod.Decoder
	// podConfig is the kubelet's pod config pipeline: the sources' updates
	// merged into ADD/UPDATE/DELETE/REMOVE/RECONCILE.
	podConfig *merge.PodConfig
	ring      *eventring.Ring
	metrics   *metrics
	pleg      *pleg.GenericPLEG
	// plegStats keeps the PLEG's statistics, as its observer.
	plegStats *plegstats.Recorder
	runtime   *cri.Client
	sources   []namedSource
	stopping  chan struct{}

	// syncLoop is the kubelet's sync loop after the merge: the pod
	// manager's view, the dispatch of the merge's notifications and the
	// PLEG's events, and the admission.
	syncLoop *syncloop.SyncLoop
	// api serves the agent's state (the Agent is its serve.State).
	api *serve.API

	// inputs publishes what the agent takes in, for a replay.
	inputs *inputs

	// journal, when on, keeps the ring's events on the node; journalErr
	// says why it could not be opened.
	journal    *journal.Journal
	journalErr error
}

// New returns an agent for cfg reproducing kubelet minor kubelet. decoder
// turns static pod manifests into pods exactly as that kubelet does.
func New(cfg *Config, kubelet kubeletminor.Minor, decoder staticpod.Decoder) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sem, err := semanticsFor(kubelet, cfg.MaxDeadContainersPerContainer)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		cfg:      cfg,
		kubelet:  kubelet,
		decoder:  decoder,
		stopping: make(chan struct{}),
	}
	ctx := context.Background()
	j, err := openJournal(ctx, cfg, a)
	a.journalErr = err
	a.ring = cfg.Events
	switch {
	case a.ring != nil:
	case j != nil:
		// The journal's numbering goes on in this process.
		a.ring = eventring.NewWithEpoch(cfg.EventBuffer, j.Epoch(), nil)
	default:
		a.ring = eventring.New(cfg.EventBuffer, nil)
	}
	a.inputs = newInputs(a.ring, cfg.ExposePodSpecs)
	a.podConfig = merge.New(merge.Options{Mode: cfg.Mode, Semantics: sem.merge, Took: a.inputs.took})
	a.metrics = newMetrics(a)
	a.syncLoop = syncloop.New(syncloop.Options{
		Ring:       a.ring,
		Dispatcher: sem.syncLoop,
		Admission:  cfg.Admission,
		// The kubelet's messages on the pods it rejected are quoted
		// whole only where the agent serves pod specs.
		AdmissionMessages: cfg.ExposePodSpecs,
		Published:         a.metrics.event,
		Judged:            a.metrics.admissions,
		NodeInput:         a.inputs.node,
	})
	serving := a.metrics.serving
	a.api = &serve.API{
		State:              a,
		Ring:               a.ring,
		Heartbeat:          cfg.Heartbeat,
		StreamWriteTimeout: serve.DefaultStreamWriteTimeout,
		Stopping:           a.stopping,
		AllowedNets:        cfg.AllowedNets,
		Streams:            cfg.Limits.StreamSlots(serving.Refused),
		Snapshots:          cfg.Limits.SnapshotSlots(serving.Refused),
		Metrics:            serving,
		MetricsHandler:     promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}),
	}
	if j != nil {
		a.useJournal(ctx, j)
	}
	if cfg.RuntimeSocket != "" {
		rt, err := cri.Dial(cfg.RuntimeSocket, cri.Options{})
		if err != nil {
			if a.journal != nil {
				_ = a.journal.Close()
			}
			return nil, fmt.Errorf("--runtime-endpoint %s: %w", cfg.RuntimeEndpoint, err)
		}
		a.runtime = rt
		opts := cfg.PLEG
		opts.Semantics = sem.pleg
		// The PLEG's runtime records what it answers, and each event
		// follows the listing of its relist, for a replay.
		recording := &recordingRuntime{Runtime: rt, in: a.inputs}
		opts.Handler = recordedHandler{runtime: recording, EventHandler: a.syncLoop}
		if cfg.RelistOnRuntimeEvents {
			opts.RuntimeEvents = rt
		}
		a.plegStats = plegstats.New(plegstats.Options{ChannelCapacity: opts.ChannelCapacity})
		opts.Observer = a.plegStats
		a.pleg = pleg.New(recording, opts)
	}
	return a, nil
}

// Run starts the sources and the PLEG, serves the HTTP API on lis and the
// kubelet's probes on probes (nil: on lis only) until ctx ends, then closes
// every stream and shuts the servers down.
func (a *Agent) Run(ctx context.Context, lis, probes net.Listener) error {
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
	// The journal takes the sources' first events, and its last commit
	// follows the sources' and the PLEG's last events.
	stopJournal := a.runJournal(ctx)
	defer stopJournal()
	if err := a.startSources(ctx); err != nil {
		return err
	}
	a.inputs.publish(&v1alpha1.Input{Settings: a.inputSettings()})

	var wg sync.WaitGroup
	wg.Go(func() { a.consumeConfig(ctx) })
	for _, s := range a.sources {
		wg.Go(func() { s.src.Run(ctx) })
	}
	if a.pleg != nil {
		wg.Go(func() { a.pleg.Run(ctx) })
	}

	servers := a.api.Servers(lis, probes, a.cfg.Limits)
	probeAddress := "(the API's)"
	if probes != nil {
		probeAddress = probes.Addr().String()
	}
	serveErr := make(chan error, len(servers))
	for _, s := range servers {
		go func() { serveErr <- fmt.Errorf("serving on %s: %w", s.Listener.Addr(), s.HTTP.Serve(s.Listener)) }()
	}
	logger.Info("Serving the podsrc API", "address", lis.Addr().String(), "probeAddress", probeAddress, "node", a.cfg.Node.NodeName,
		"sources", a.podConfig.Sources(), "mode", a.cfg.Mode, "pleg", a.cfg.RuntimeEndpoint != "")

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	// Streams, sources and the PLEG stop together, while the servers drain.
	stopped := time.Now()
	close(a.stopping)
	cancel()
	shutdownCtx, done := context.WithTimeout(context.WithoutCancel(ctx), shutdownServerTimeout)
	defer done()
	for _, s := range servers {
		if serr := s.HTTP.Shutdown(shutdownCtx); serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			logger.Error(serr, "Shutting down the HTTP server", "address", s.Listener.Addr().String())
			_ = s.HTTP.Close()
		}
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

// Handler returns the agent's HTTP API (serve.API.Handler).
func (a *Agent) Handler() http.Handler { return a.api.Handler() }

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

// consumeConfig hands the merge's notifications to the sync loop, as the
// kubelet's sync loop takes them from its config channel.
func (a *Agent) consumeConfig(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case u := <-a.podConfig.Updates():
			a.syncLoop.HandleConfig(u)
		}
	}
}

// inputSettings are the settings a replay of the agent's inputs needs.
func (a *Agent) inputSettings() *v1alpha1.InputSettings {
	s := &v1alpha1.InputSettings{
		Sources: a.podConfig.Sources(), Mode: a.cfg.Mode.String(), FeatureGates: a.cfg.Sources.FeatureGates,
		MaxDeadContainersPerContainer: a.cfg.MaxDeadContainersPerContainer, AdmissionMessages: a.cfg.ExposePodSpecs,
		PLEG: a.pleg != nil, PLEGChannelCapacity: a.cfg.PLEG.ChannelCapacity,
	}
	if a.cfg.Admission != nil {
		s.Admission = a.cfg.AdmissionSettings
	}
	return s
}

// nodeChanged takes the kubelet's Node object from the API source, for the
// admit handlers.
func (a *Agent) nodeChanged(n *v1.Node) {
	a.syncLoop.SetNode(n)
}
