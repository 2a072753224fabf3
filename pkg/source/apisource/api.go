// Package apisource is podsrc's copy of the kubelet's API server pod
// source: the pods bound to the node, listed and watched once the node
// informer has synced, sent as full SETs.
package apisource

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/merge"
	"github.com/podsrc/podsrc/pkg/nodeenv"
	"github.com/podsrc/podsrc/pkg/source"
)

// partNode is the part of the source (source.StatusBook.Failed) that fails
// while the node is not found; the list and watch calls fail as their
// resource, "pods" or "nodes".
const partNode = "node"

// DefaultNodeSyncPeriod is the kubelet's period between two checks of
// whether its node informer has synced, which gates the pod watch
// (WaitForAPIServerSyncPeriod).
const DefaultNodeSyncPeriod = time.Second

// Client settings of the kubelet's own API client (kubelet defaults for
// contentType, kubeAPIQPS and kubeAPIBurst), applied by NewAPI to a
// rest.Config.
const (
	apiContentType = runtime.ContentTypeProtobuf
	apiQPS         = 50
	apiBurst       = 100
	apiUserAgent   = "podsrc"
)

// APIOptions configures an APISource. Either Config or Client is required.
type APIOptions struct {
	// Config is the API server's client configuration. NewAPI builds its
	// client from a copy, with the kubelet's content type (protobuf) and,
	// when unset, the kubelet's QPS and burst.
	Config *rest.Config
	// Client, when set, is used instead of a client built from Config
	// (tests use a fake).
	Client APIClient
	// Host names the API server in the status and in errors; it defaults
	// to Config.Host.
	Host string
	// NodeName is the kubelet's node name; required. The source watches the
	// pods whose spec.nodeName equals it.
	NodeName string
	// Updates receives the SETs; required.
	Updates chan<- merge.PodUpdate
	// NodeSyncPeriod is the period of the checks for the node sync; 0 means
	// DefaultNodeSyncPeriod.
	NodeSyncPeriod time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// NodeChanged, when set, is given the node after its first list and
	// every change of it (nil once it is gone), as the kubelet's node
	// lister sees it. It must not block.
	NodeChanged func(*v1.Node)
}

// APISource is the kubelet's API server source. Once the list of the node
// object has synced (as the kubelet waits for its node informer), it lists
// and watches the pods bound to the node across all namespaces, and sends
// the node's full pod list after the initial list and after every change,
// relist or watch event alike. client-go's reflector handles watch expiry,
// relists and retries.
//
// Its Status has Source v1alpha1.SourceAPI, Target the API server's host, Checks counting
// the full lists of pods (the first and every relist), and LastError the last
// failure to list or watch, or the node's absence, with what to fix.
type APISource struct {
	client   APIClient
	host     string
	nodeName string
	updates  chan<- merge.PodUpdate
	period   time.Duration
	now      func() time.Time
	status   source.StatusBook
	errs     apiErrorLog
	// onNode is APIOptions.NodeChanged, never nil.
	onNode func(*v1.Node)

	// nodeSynced is set once the first list of the node object is stored.
	nodeSynced atomic.Bool
	// nodeSeen and nodeReported are owned by the node reflector's store.
	nodeSeen     bool
	nodeReported bool
}

// NewAPI returns an API server source for opts. It starts nothing; call Run.
func NewAPI(opts APIOptions) (*APISource, error) {
	if opts.NodeName == "" {
		return nil, errors.New("API source: no node name")
	}
	if opts.Updates == nil {
		return nil, errors.New("API source: no updates channel")
	}
	client, host := opts.Client, opts.Host
	if client == nil {
		if opts.Config == nil {
			return nil, errors.New("API source: no client configuration")
		}
		rc := rest.CopyConfig(opts.Config)
		rc.ContentType = apiContentType
		rc.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
		if rc.QPS == 0 {
			rc.QPS = apiQPS
		}
		if rc.Burst == 0 {
			rc.Burst = apiBurst
		}
		if rc.UserAgent == "" {
			rc.UserAgent = apiUserAgent
		}
		var err error
		client, err = newRESTAPIClient(rc)
		if err != nil {
			return nil, fmt.Errorf("API source: client for %s: %w", rc.Host, err)
		}
	}
	if host == "" && opts.Config != nil {
		host = opts.Config.Host
	}
	period := opts.NodeSyncPeriod
	if period <= 0 {
		period = DefaultNodeSyncPeriod
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &APISource{
		client:   client,
		host:     host,
		nodeName: opts.NodeName,
		updates:  opts.Updates,
		period:   period,
		now:      now,

		onNode: opts.NodeChanged,
	}
	if s.onNode == nil {
		s.onNode = func(*v1.Node) {}
	}
	s.status.Update(func(st *source.Status) { *st = source.Status{Source: v1alpha1.SourceAPI, Target: host} })
	return s, nil
}

// Status returns a copy of the source's current status.
func (s *APISource) Status() source.Status { return s.status.Snapshot() }

// Run waits for the node sync, then watches the node's pods, until ctx
// ends. It returns once everything it started has stopped.
func (s *APISource) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("source", v1alpha1.SourceAPI, "server", s.host, "node", s.nodeName)
	ctx = klog.NewContext(ctx, logger)

	var wg sync.WaitGroup
	defer wg.Wait()
	nodeCtx, stopNode := context.WithCancel(ctx)
	defer stopNode()
	nodeStore := cache.NewUndeltaStore(func(objs []interface{}) { s.nodeChanged(nodeCtx, objs) }, cache.MetaNamespaceKeyFunc)
	nodeReflector := newReflector(nodeCtx, s, "nodes",
		fields.OneTermEqualSelector(metav1.ObjectNameField, s.nodeName), &v1.Node{}, nodeStore)
	wg.Add(1)
	go func() {
		defer wg.Done()
		nodeReflector.RunWithContext(nodeCtx)
	}()

	logger.Info("Waiting for node sync before watching API server pods")
	if !s.waitNodeSync(ctx) {
		return
	}
	logger.Info("Watching API server pods")
	podStore := &apiPodStore{
		UndeltaStore: cache.NewUndeltaStore(func(objs []interface{}) { s.push(ctx, objs) }, cache.MetaNamespaceKeyFunc),
		replaced:     func() { s.status.Checked(s.now()) },
	}
	newReflector(ctx, s, "pods",
		fields.OneTermEqualSelector("spec.nodeName", s.nodeName), &v1.Pod{}, podStore).RunWithContext(ctx)
}

// waitNodeSync checks every period, the first time at once, whether the
// node's first list is in, as the kubelet does before it watches pods. It
// returns false when ctx ends first.
func (s *APISource) waitNodeSync(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	for {
		if s.nodeSynced.Load() {
			logger.V(4).Info("Node sync completed")
			return true
		}
		timer := time.NewTimer(s.period)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
		logger.V(4).Info("Node sync has not completed yet")
	}
}

// newReflector returns a reflector of resource ("pods" or "nodes", listed
// cluster-wide and filtered by selector) into store, whose list and watch
// calls record their failures on s.
func newReflector(ctx context.Context, s *APISource, resource string, selector fields.Selector, obj runtime.Object, store cache.ReflectorStore) *cache.Reflector {
	logger := klog.FromContext(ctx)
	sel := selector.String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			out, err := s.client.List(ctx, resource, o)
			s.observe(ctx, resource, "list", err)
			return out, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			w, err := s.client.Watch(ctx, resource, o)
			if err != nil && o.SendInitialEvents != nil && (apierrors.IsBadRequest(err) || apierrors.IsInvalid(err)) {
				// An API server without watch-list support: the
				// reflector lists instead, and that list's outcome counts.
				logger.V(4).Info("Watch-list refused, the reflector falls back to a list", "resource", resource, "err", err)
				return w, err
			}
			s.observe(ctx, resource, "watch", err)
			return w, err
		},
	}
	// The reflector logs through ctx's logger once running.
	return cache.NewReflectorWithOptions(listWatch{ListWatch: lw, client: s.client}, obj, store,
		cache.ReflectorOptions{Name: "podsrc-api-" + resource, Clock: stopClock{ctx: ctx}})
}

// listWatch tells the reflector, as client-go v0.35's
// cache.ToListWatcherWithWatchListSemantics does, when the API client does
// not support watch-list (client-go's fakes). It is podsrc's own so that
// the agent builds for kubelets v1.33 and v1.34, which link their minor's
// client-go, compile too; their reflectors do not ask.
type listWatch struct {
	*cache.ListWatch
	client APIClient
}

// IsWatchListSemanticsUnSupported reports whether the client says it does
// not support watch-list.
func (l listWatch) IsWatchListSemanticsUnSupported() bool {
	u, ok := l.client.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && u.IsWatchListSemanticsUnSupported()
}

// observe records the outcome of one list or watch call.
func (s *APISource) observe(ctx context.Context, resource, verb string, err error) {
	logger := klog.FromContext(ctx)
	if err == nil {
		s.status.Succeeded(s.now(), resource)
		if s.errs.succeeded(resource) {
			logger.Info("API server answers again", "resource", resource)
		}
		return
	}
	if ctx.Err() != nil {
		// Stopping, not failing.
		return
	}
	err = explainAPIError(err, resource, verb, s.host, s.nodeName)
	s.status.Failed(s.now(), resource, err)
	if s.errs.failed(resource) <= 3 {
		logger.Info("API server request failed", "resource", resource, "err", err)
	} else {
		logger.V(4).Info("API server request failed", "resource", resource, "err", err)
	}
}

// nodeChanged receives the node list (none or the node) after every change
// of it, the first time after the first list.
func (s *APISource) nodeChanged(ctx context.Context, objs []interface{}) {
	logger := klog.FromContext(ctx)
	found := len(objs) > 0
	var node *v1.Node
	if found {
		if n, ok := objs[0].(*v1.Node); ok {
			node = n
			s.status.Update(func(st *source.Status) { st.NodeKubeletVersion = n.Status.NodeInfo.KubeletVersion })
		}
	}
	s.onNode(node)
	first := !s.nodeSynced.Load()
	switch {
	case !found && (first || s.nodeSeen):
		err := fmt.Errorf("node %s not found: is --%s right? (API server %s)", s.nodeName, nodeenv.FlagNodeName, s.host)
		s.status.Failed(s.now(), partNode, err)
		logger.Info("Node not found", "err", err)
		s.nodeReported = true
	case found && s.nodeReported && !s.nodeSeen:
		logger.Info("Node found")
	}
	if found {
		s.status.Succeeded(s.now(), partNode)
	}
	s.nodeSeen = found
	s.nodeSynced.Store(true)
}

// push sends the node's pods as a SET, the pods sorted by namespace and
// name, each fingerprinted with its resourceVersion. The pods are the
// store's own, which the reflector replaces and never changes: the merge
// keeps and shares them (see merge.PodUpdate). It gives up, sending
// nothing, when ctx ends first.
func (s *APISource) push(ctx context.Context, objs []interface{}) {
	pods := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok {
			pods = append(pods, p)
		}
	}
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].Namespace != pods[j].Namespace {
			return pods[i].Namespace < pods[j].Namespace
		}
		return pods[i].Name < pods[j].Name
	})
	refs := source.PodRefs(pods, func(*v1.Pod) string { return s.host })
	update := merge.PodUpdate{
		Op:           merge.Set,
		Source:       v1alpha1.SourceAPI,
		Pods:         pods,
		Fingerprints: make([]string, len(pods)),
	}
	for i, p := range pods {
		update.Fingerprints[i] = p.ResourceVersion
	}
	select {
	case s.updates <- update:
		s.status.Delivered(s.now(), refs)
	case <-ctx.Done():
	}
}

// apiPodStore is the kubelet's undelta store of pods, also reporting every
// full list it receives.
type apiPodStore struct {
	*cache.UndeltaStore
	replaced func()
}

// Replace reports a full list, then stores and pushes it.
func (a *apiPodStore) Replace(list []interface{}, resourceVersion string) error {
	a.replaced()
	return a.UndeltaStore.Replace(list, resourceVersion)
}

// apiErrorLog counts the consecutive failures of each resource's calls.
type apiErrorLog struct {
	mu       sync.Mutex
	failures map[string]int
}

// failed counts a failure and returns how many happened in a row.
func (l *apiErrorLog) failed(resource string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failures == nil {
		l.failures = map[string]int{}
	}
	l.failures[resource]++
	return l.failures[resource]
}

// succeeded resets the count and reports whether failures came before.
func (l *apiErrorLog) succeeded(resource string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.failures[resource]
	delete(l.failures, resource)
	return n > 0
}

// OptionsFor returns the API server source's options for a source
// configuration on the node, with the client configuration of its
// RESTConfig, and whether the source is on. The caller sets Updates.
func OptionsFor(c source.Config, node nodeenv.Env) (APIOptions, bool, error) {
	if !c.EnableAPISource {
		return APIOptions{}, false, nil
	}
	rc, err := c.RESTConfig()
	if err != nil {
		return APIOptions{}, false, err
	}
	return APIOptions{Config: rc, NodeName: node.NodeName}, true, nil
}
