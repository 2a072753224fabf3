package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// Connector makes Agent clients for nodes, all reached the same way.
type Connector struct {
	// Via is how requests reach agents.
	Via Via
	// Port is the agent's port (proxy modes); TLS says the agent serves
	// https, which the proxy path then names.
	Port int
	TLS  bool
	// AgentURL is the one agent of ViaDirect.
	AgentURL string
	// Transport, when set, carries ViaDirect's requests instead of
	// connections to AgentURL's host: an archive served in memory.
	Transport http.RoundTripper
	// Namespace and Selector find the agent's pods (ViaPodProxy).
	Namespace string
	Selector  string
	// Config is the cluster's client configuration (proxy modes).
	Config *rest.Config
	// Clientset is used to find agent pods; made from Config when nil.
	Clientset kubernetes.Interface
	// Timeout bounds each request but the event stream; zero means none.
	Timeout time.Duration
	// Budget bounds the bytes read from all the agents made, together;
	// nil means no bound but each answer's.
	Budget *Budget

	mu           sync.Mutex
	httpClient   *http.Client
	streamClient *http.Client
	apiServer    string
}

// init prepares the HTTP clients once.
func (c *Connector) init() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.httpClient != nil {
		return nil
	}
	if c.Port == 0 {
		c.Port = v1alpha1.DefaultAgentPort
	}
	if c.Namespace == "" {
		c.Namespace = AgentNamespace
	}
	if c.Selector == "" {
		c.Selector = AgentSelector
	}
	if c.Via == ViaDirect {
		var tr http.RoundTripper = c.Transport
		if tr == nil {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
			tr = t
		}
		c.httpClient = &http.Client{Transport: tr, Timeout: c.Timeout}
		c.streamClient = &http.Client{Transport: tr}
		return nil
	}
	if c.Config == nil {
		return fmt.Errorf("no cluster configuration to reach agents %s", c.Via)
	}
	cfg := rest.CopyConfig(c.Config)
	if c.Timeout == 0 {
		c.Timeout = cfg.Timeout
	}
	cfg.Timeout = 0
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return fmt.Errorf("making an HTTP client for the API server: %w", err)
	}
	c.streamClient = hc
	c.httpClient = &http.Client{Transport: hc.Transport, Timeout: c.Timeout}
	host, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return fmt.Errorf("parsing the API server's address %q: %w", cfg.Host, err)
	}
	c.apiServer = strings.TrimSuffix(host.String(), "/")
	if c.Clientset == nil {
		c.Clientset, err = kubernetes.NewForConfig(c.Config)
		if err != nil {
			return fmt.Errorf("making a Kubernetes client: %w", err)
		}
	}
	return nil
}

// Agent returns a client of the agent on node; node is ignored (but kept
// for messages) with ViaDirect.
func (c *Connector) Agent(node string) (*Agent, error) {
	if err := c.init(); err != nil {
		return nil, err
	}
	a := &Agent{Node: node, Via: c.Via, Port: c.Port, http: c.httpClient, stream: c.streamClient, budget: c.Budget}
	switch c.Via {
	case ViaDirect:
		u, err := url.Parse(c.AgentURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--agent-url %q: want http://host:port or https://host:port", c.AgentURL)
		}
		base := strings.TrimSuffix(u.String(), "/")
		// Errors name the agent by its URL, without its credentials.
		a.target = strings.TrimSuffix(u.Redacted(), "/")
		a.resolve = func(context.Context) (string, error) { return base, nil }
	case ViaNodeProxy:
		a.target = c.apiServer
		base := c.apiServer + "/api/v1/nodes/" + url.PathEscape(c.proxyName(node)) + "/proxy"
		a.resolve = func(context.Context) (string, error) { return base, nil }
	case ViaPodProxy:
		a.target = c.apiServer
		a.resolve = func(ctx context.Context) (string, error) {
			pod, err := c.findAgentPod(ctx, a)
			if err != nil {
				return "", err
			}
			return c.apiServer + "/api/v1/namespaces/" + url.PathEscape(c.Namespace) + "/pods/" + url.PathEscape(c.proxyName(pod)) + "/proxy", nil
		}
	default:
		return nil, fmt.Errorf("unknown --via %q: want %s or %s", c.Via, ViaNodeProxy, ViaPodProxy)
	}
	return a, nil
}

// proxyName is the [scheme:]name:port of a proxy path.
func (c *Connector) proxyName(name string) string {
	s := name + ":" + strconv.Itoa(c.Port)
	if c.TLS {
		s = "https:" + s
	}
	return s
}

// findAgentPod returns the name of the agent's pod on a.Node, preferring a
// running one.
func (c *Connector) findAgentPod(ctx context.Context, a *Agent) (string, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	pods, err := c.Clientset.CoreV1().Pods(c.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: c.Selector,
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", a.Node).String(),
	})
	if err != nil {
		return "", c.apiError(ctx, a, err, fmt.Sprintf("listing the agent's pods in namespace %s", c.Namespace))
	}
	var pending *corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Status.Phase == corev1.PodRunning {
			return p.Name, nil
		}
		pending = p
	}
	if pending != nil {
		return "", newError(ReasonNoAgent, nil, "the agent pod %s/%s on node %q is %s, not running: `kubectl -n %s describe pod %s` says why", c.Namespace, pending.Name, a.Node, pending.Status.Phase, c.Namespace, pending.Name)
	}
	// No agent pod: is there such a node at all?
	if _, err := c.Clientset.CoreV1().Nodes().Get(ctx, a.Node, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return "", newError(ReasonNodeNotFound, nil, "node %q not found: `kubectl get nodes` lists the nodes", a.Node)
	}
	return "", newError(ReasonNoAgent, nil, "no podsrc agent pod on node %q (namespace %s, label %s): deploy it with `%s`", a.Node, c.Namespace, c.Selector, DeployCommand)
}

// apiError classifies an error of a client-go call made for a.
func (c *Connector) apiError(ctx context.Context, a *Agent, err error, doing string) error {
	switch {
	case apierrors.IsForbidden(err):
		return a.forbiddenError(oneLine(err.Error()))
	case apierrors.IsUnauthorized(err):
		return newError(ReasonUnauthorized, err, "the API server rejected your credentials (%s): check --kubeconfig, --context and --user", oneLine(err.Error()))
	case apierrors.IsNotFound(err):
		return newError(ReasonOther, err, "%s: %v", doing, err)
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return newError(ReasonUnavailable, err, "%s: %v", doing, oneLine(err.Error()))
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return newError(ReasonTimeout, err, "%s: the API server at %s did not answer in time (--request-timeout sets the limit)", doing, c.apiServer)
	}
	return a.transportError(ctx, err)
}

// withTimeout bounds ctx by the request timeout, if any.
func (c *Connector) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.Timeout > 0 {
		return context.WithTimeout(ctx, c.Timeout)
	}
	return context.WithCancel(ctx)
}

// ClusterError classifies an error of a client-go call made to select nodes
// (listing or getting nodes), naming what was being done.
func ClusterError(err error, doing string) error {
	switch {
	case apierrors.IsForbidden(err):
		return newError(ReasonForbidden, err, "%s: forbidden (%s): selecting nodes by label or --all-nodes needs list nodes; name the nodes instead", doing, oneLine(err.Error()))
	case apierrors.IsUnauthorized(err):
		return newError(ReasonUnauthorized, err, "the API server rejected your credentials (%s): check --kubeconfig, --context and --user", oneLine(err.Error()))
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return newError(ReasonOther, err, "%s: %v", doing, oneLine(err.Error()))
	}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return newError(ReasonConnectionRefused, err, "%s: connection refused by the API server: check --kubeconfig, --context and --server", doing)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return newError(ReasonTimeout, err, "%s: timed out talking to the API server (--request-timeout sets the limit)", doing)
	}
	return newError(ReasonUnavailable, err, "%s: %v", doing, err)
}
