// Package cli implements kubectl podsrc: every command an Options struct
// with Complete, Validate and Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// CommonOptions are the flags every command shares: the cluster's
// (--kubeconfig, --context, ...) and how to reach the agents.
type CommonOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams

	Via            string
	AgentURL       string
	AgentPort      int
	AgentTLS       bool
	AgentNamespace string
	// NodeTimeout bounds everything a command asks one node's agent
	// (fanout.go).
	NodeTimeout time.Duration
	// MaxBytes bounds what a command holds of what its agents sent,
	// across nodes (budget); zero means no bound but each answer's.
	MaxBytes resource.QuantityValue
	// Terminal is stderr when it is a terminal, for the fan-out's progress
	// line; nil otherwise.
	Terminal *Terminal

	// warnings is the stderr of the API server's warnings, which the
	// fan-out's progress line guards while it is shown.
	warnings *warningWriter
	// heldBudget is the command's budget of --max-bytes (budget), which
	// the reading of every node's answers and the printers draw from.
	heldBudget     *client.Budget
	heldBudgetOnce sync.Once

	// Now is the clock of ages; time.Now unless a test sets it.
	Now func() time.Time
	// clientset, when a test sets it, is the cluster's client instead of
	// one built from the flags.
	clientset kubernetes.Interface

	// From is --from: an archive to read instead of agents (from.go);
	// offline is that archive, once read.
	From    string
	offline *offline
}

// DefaultRequestTimeout bounds every request but watch's stream when
// --request-timeout is not given, so that a stalled agent or proxy fails
// its node instead of hanging the command.
const DefaultRequestTimeout = 30 * time.Second

// NewCommonOptions returns the defaults. Whatever is written to ErrOut
// passes through printers.NewEscapingWriter: errors and warnings quote what
// agents and the API server said.
func NewCommonOptions(streams genericiooptions.IOStreams) *CommonOptions {
	terminal := stderrTerminal(streams.ErrOut)
	streams.ErrOut = printers.NewEscapingWriter(streams.ErrOut)
	warnings := &warningWriter{w: streams.ErrOut}
	configFlags := genericclioptions.NewConfigFlags(true).WithWrapConfigFn(warningHandler(warnings))
	timeout := DefaultRequestTimeout.String()
	configFlags.Timeout = &timeout
	return &CommonOptions{
		warnings:       warnings,
		ConfigFlags:    configFlags,
		IOStreams:      streams,
		Via:            string(client.ViaNodeProxy),
		AgentPort:      v1alpha1.DefaultAgentPort,
		AgentNamespace: client.AgentNamespace,
		NodeTimeout:    DefaultNodeTimeout,
		MaxBytes:       resource.QuantityValue{Quantity: *resource.NewQuantity(client.DefaultBudget, resource.BinarySI)},
		Terminal:       terminal,
		Now:            time.Now,
	}
}

// AddFlags binds the shared flags to the root command.
func (o *CommonOptions) AddFlags(cmd *cobra.Command) {
	fs := cmd.PersistentFlags()
	o.ConfigFlags.AddFlags(fs)
	fs.StringVar(&o.Via, "via", o.Via, "How to reach the agents: node-proxy (the API server's nodes/<node>:<port>/proxy; needs get nodes/proxy, which also opens the kubelet's API) or pod-proxy (the agent's pod through pods/<pod>:<port>/proxy; needs only get pods/proxy and list pods in the agent's namespace).")
	fs.StringVar(&o.AgentURL, "agent-url", o.AgentURL, "Talk to one agent at this URL (http://host:port) instead of going through the cluster; no node argument is needed.")
	fs.IntVar(&o.AgentPort, "agent-port", o.AgentPort, "The port the agents listen on.")
	fs.BoolVar(&o.AgentTLS, "agent-tls", o.AgentTLS, "The agents serve HTTPS: proxy to https:<node>:<port>.")
	fs.StringVar(&o.AgentNamespace, "agent-namespace", o.AgentNamespace, "The namespace of the agent's pods (--via=pod-proxy).")
	addNodeTimeoutFlag(fs, &o.NodeTimeout)
	fs.Var(&o.MaxBytes, "max-bytes", "The most a command holds of what agents sent, across all its nodes, counted as held in memory (decoded), not as received: answers, event histories, the events an events List prints, and the rows a table holds to align them; not a live watch's events, nor an answer already printed by -o name or -o custom-columns. Such as 256Mi; a node whose answer goes past it fails with an error that names the flag, the other nodes still print. 0: no bound but each answer's.")
	_ = cmd.RegisterFlagCompletionFunc("via", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{string(client.ViaNodeProxy), string(client.ViaPodProxy)}, cobra.ShellCompDirectiveNoFileComp
	})
}

// Direct reports whether --agent-url or --from was given: one agent, no
// cluster.
func (o *CommonOptions) Direct() bool { return o.AgentURL != "" || o.From != "" }

// Validate checks the shared flags.
func (o *CommonOptions) Validate() error {
	o.Via = strings.ToLower(o.Via)
	switch client.Via(o.Via) {
	case client.ViaNodeProxy, client.ViaPodProxy:
	default:
		return fmt.Errorf("--via %q: want node-proxy or pod-proxy", o.Via)
	}
	if o.AgentPort <= 0 || o.AgentPort > 65535 {
		return fmt.Errorf("--agent-port %d: want a port number", o.AgentPort)
	}
	if o.NodeTimeout < 0 {
		return fmt.Errorf("--node-timeout %s: want a duration, or 0 for no limit", o.NodeTimeout)
	}
	if o.From != "" && o.AgentURL != "" {
		return fmt.Errorf("--from reads an archive, --agent-url an agent: give one of them")
	}
	if o.MaxBytes.Sign() < 0 {
		return fmt.Errorf("--max-bytes %s: want a size such as 256Mi, or 0 for no bound", o.MaxBytes.String())
	}
	return nil
}

// requestTimeout parses --request-timeout as kubectl does: a bare number
// is seconds, 0 means no limit. With --agent-url no cluster configuration
// parses it for us.
func (o *CommonOptions) requestTimeout() (time.Duration, error) {
	if o.ConfigFlags.Timeout == nil || *o.ConfigFlags.Timeout == "" {
		return 0, nil
	}
	d, err := clientcmd.ParseTimeout(*o.ConfigFlags.Timeout)
	if err != nil {
		return 0, fmt.Errorf("--request-timeout %q: want a duration such as 30s, or seconds", *o.ConfigFlags.Timeout)
	}
	return d, nil
}

// history returns the events agent a holds that pass filter
// (client.Agent.History), the reading bounded by --request-timeout as one
// request: the request timeout of the HTTP client does not bound event
// streams.
func (o *CommonOptions) history(ctx context.Context, a *client.Agent, filter v1alpha1.EventQuery) ([]v1alpha1.Event, bool, error) {
	if d, err := o.requestTimeout(); err == nil && d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return a.History(ctx, filter)
}

// budget returns the command's budget of --max-bytes, one for the whole
// command; nil for no bound.
func (o *CommonOptions) budget() *client.Budget {
	o.heldBudgetOnce.Do(func() {
		if n := o.MaxBytes.Value(); n > 0 {
			o.heldBudget = client.NewBudget(n)
		}
	})
	return o.heldBudget
}

// printBudget is budget for a printer: a nil interface for no bound.
func (o *CommonOptions) printBudget() printers.Budget {
	if b := o.budget(); b != nil {
		return b
	}
	return nil
}

// Connector returns the connector the flags describe.
func (o *CommonOptions) Connector() (*client.Connector, error) {
	timeout, err := o.requestTimeout()
	if err != nil {
		return nil, err
	}
	c := &client.Connector{Via: client.Via(o.Via), Port: o.AgentPort, TLS: o.AgentTLS, Namespace: o.AgentNamespace, Timeout: timeout}
	c.Budget = o.budget()
	if o.From != "" {
		return o.archiveConnector(c)
	}
	if o.Direct() {
		c.Via, c.AgentURL = client.ViaDirect, o.AgentURL
		return c, nil
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the cluster's configuration: %w (or pass --agent-url to talk to one agent)", err)
	}
	c.Config = cfg
	return c, nil
}

// hasClusterConfig reports whether a cluster is configured: a kubeconfig
// with a cluster, --server, or the pod's in-cluster configuration.
// Without one, client-go would dial localhost:8080.
func (o *CommonOptions) hasClusterConfig() bool {
	if o.clientset != nil || (o.ConfigFlags.APIServer != nil && *o.ConfigFlags.APIServer != "") {
		return true
	}
	if raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); err != nil || len(raw.Clusters) > 0 {
		// A kubeconfig that does not load is a configuration, and an
		// error to report.
		return true
	}
	_, err := rest.InClusterConfig()
	return err == nil
}

// Clientset returns a client of the cluster.
func (o *CommonOptions) Clientset() (kubernetes.Interface, error) {
	if o.clientset != nil {
		return o.clientset, nil
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the cluster's configuration: %w", err)
	}
	return kubernetes.NewForConfig(cfg)
}

// errFailed says some nodes failed; their errors are printed already.
var errFailed = errors.New("some nodes failed")

// options is a command's Options, in kubectl's Complete, Validate, Run pattern.
type options interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runOptions returns the RunE of a command with those options; its errors
// are runErrors.
func runOptions(o options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(args); err != nil {
			return runError{err}
		}
		if err := o.Validate(); err != nil {
			return runError{err}
		}
		if err := o.Run(cmd.Context()); err != nil {
			return runError{err}
		}
		return nil
	}
}

// runError is the error of a command's run, which may quote what agents
// and the API server said: it is printed with every control character
// escaped, line feeds included. Any other error is cobra's own text (an
// unknown command or flag, with its suggestions), printed with its layout.
type runError struct{ err error }

// Error implements error.
func (e runError) Error() string { return e.err.Error() }

// Unwrap returns the command's error.
func (e runError) Unwrap() error { return e.err }
