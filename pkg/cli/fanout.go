package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// result is the outcome of one node's request.
type result[T any] struct {
	Node  string
	Value T
	Err   error
	// Printed says the fan-out's each printed Value and let it go: Value
	// is zero.
	Printed bool
}

// DefaultNodeTimeout bounds, unless --node-timeout says otherwise,
// everything a command asks one node's agent: its /version, then its
// answer. A node that takes longer fails with an error that names the flag,
// and the other nodes print; each single request is bounded by
// --request-timeout as well, whichever ends first.
const DefaultNodeTimeout = 10 * time.Second

// addNodeTimeoutFlag binds --node-timeout to d.
func addNodeTimeoutFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "node-timeout", *d, "Give up on a node whose agent has not answered all a command asks it (its version, then the answer) within this long; the other nodes still print. Each single request is also bounded by --request-timeout. 0: no limit. watch gets it for its /version and its stream's first message, then --idle-timeout bounds the silences; events gets it for the whole history.")
}

// fanOut runs fn for every node, at most limit at once, starting them in
// the order of nodes. It hands each node's result to each (when not nil)
// as soon as the node is done, one result at a time, before the node's
// turn goes to the next (with a limit of 1: in the order of nodes), and
// returns all the results in the order of nodes. A value each printed and
// does not keep is let go (result.Printed), so that the fan-out holds only
// the answers not yet printed.
func fanOut[T any](ctx context.Context, nodes []string, limit int, fn func(ctx context.Context, node string) (T, error), each func(result[T]) (keep bool)) []result[T] {
	out := make([]result[T], len(nodes))
	var eachMu sync.Mutex
	done := func(i int, r result[T]) {
		if each != nil {
			eachMu.Lock()
			defer eachMu.Unlock()
			if !each(r) && r.Err == nil {
				r = result[T]{Node: r.Node, Printed: true}
			}
		}
		out[i] = r
	}
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, n := range nodes {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			done(i, result[T]{Node: n, Err: interrupted(ctx, ctx.Err())})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v, err := fn(ctx, n)
			done(i, result[T]{Node: n, Value: v, Err: interrupted(ctx, err)})
		}()
	}
	wg.Wait()
	return out
}

// errInterrupted is a node's error when the command was interrupted
// (Ctrl-C) before the node answered.
var errInterrupted = errors.New("interrupted before the agent answered")

// interrupted returns errInterrupted for err, an error of a node's call,
// when ctx was canceled (Ctrl-C) and that is what ended the call, so that
// each node says so in one sentence instead of a request's URL and
// "context canceled"; err otherwise.
func interrupted(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.Canceled) && errors.Is(err, context.Canceled) {
		return errInterrupted
	}
	return err
}

// agentCall runs call against the agent of every node (agentCallEach); a
// streaming command's node errors are printed when they happen, while the
// other nodes go on.
func agentCall[T any](ctx context.Context, o *CommonOptions, nf *NodeFlags, call func(ctx context.Context, a *client.Agent, v NodeVersion) (T, error)) ([]result[T], error) {
	var each func(result[T]) bool
	if nf.Streaming {
		each = func(r result[T]) bool {
			if r.Err != nil {
				printErrors([]result[T]{r}, o.ErrOut)
			}
			return true
		}
	}
	return agentCallEach(ctx, o, nf, call, each)
}

// agentCallEach runs call against the agent of every node, at most
// --max-concurrency at once (a streaming command: all at once), and
// returns the results in the order of the nodes. each, when not nil, gets
// every node's result as soon as that node is done, so that a printer that
// does not need all rows may print them as nodes answer, and says whether
// to keep it (fanOut); the progress line is cleared while it prints.
//
// Before the call it learns the versions of the node's agent and kubelet,
// which call gets, and warns on stderr about skew, once for the whole
// command. A node whose agent does not answer /version fails at once, as
// call would; the call of a command that follows its streams gets a zero
// NodeVersion instead unless the failure is permanent, and retries on its
// own.
//
// A command gives each node --node-timeout for all of it, but one that
// follows its streams (watch), whose /version and first answer share
// --node-timeout and --request-timeout instead (NodeVersion.answerBy). A
// command that is not streaming shows, on a terminal, the nodes it still
// waits for on a progress line on stderr, cleared before it returns. A
// streaming command says on stderr which nodes it reads before the first
// event.
func agentCallEach[T any](ctx context.Context, o *CommonOptions, nf *NodeFlags, call func(ctx context.Context, a *client.Agent, v NodeVersion) (T, error), each func(result[T]) bool) ([]result[T], error) {
	conn, err := o.Connector()
	if err != nil {
		return nil, err
	}
	nodes, kubelets, err := nf.Resolve(ctx, o)
	if err != nil {
		return nil, err
	}
	var nodeClient corev1client.NodeInterface
	if !o.Direct() {
		if cs, err := o.Clientset(); err == nil {
			nodeClient = cs.CoreV1().Nodes()
		}
	}
	answerBound, answerFlag := o.answerBound()
	limit := nf.MaxConcurrency
	var prog *progress
	if nf.Streaming {
		limit = len(nodes)
		announceStreams(o, nodes, nf.Follow)
	} else if !o.Direct() {
		prog = startProgress(o.Terminal, nodes)
		if o.warnings != nil {
			defer o.warnings.showing(prog)()
		}
	}
	// The warnings may come while the progress line is shown.
	skew := newSkewCheck(prog.guard(o.ErrOut), len(nodes), nodeClient, kubelets)
	ask := func(ctx context.Context, node string) (T, error) {
		var zero T
		a, err := conn.Agent(node)
		if err != nil {
			skew.checked()
			return zero, err
		}
		versionCtx := ctx
		var answerBy time.Time
		if nf.Follow && answerBound > 0 {
			answerBy = time.Now().Add(answerBound)
			var cancel context.CancelFunc
			versionCtx, cancel = context.WithDeadline(ctx, answerBy)
			defer cancel()
		}
		v, err := skew.check(versionCtx, a)
		if err != nil && ctx.Err() == nil && errors.Is(versionCtx.Err(), context.DeadlineExceeded) {
			return zero, o.noAnswerError(node, answerFlag, err)
		}
		if err != nil && (!nf.Follow || client.IsPermanent(err)) {
			return zero, err
		}
		if err == nil && o.Direct() && node != "" && v.Agent.NodeName != "" && v.Agent.NodeName != node {
			return zero, fmt.Errorf("the agent at %s runs on node %q, not %q: name its node, or none with --agent-url", o.AgentURL, v.Agent.NodeName, node)
		}
		v.answerBy = answerBy
		return call(ctx, a, v)
	}
	if !nf.Follow && o.NodeTimeout > 0 {
		ask = withNodeTimeout(o, ask)
	}
	results := fanOut(ctx, nodes, limit, ask, func(r result[T]) bool {
		keep := true
		prog.answered(r.Node, func() {
			if each != nil {
				keep = each(r)
			}
		})
		return keep
	})
	prog.finish()
	// Nodes the fan-out never reached (the context ended) were not counted.
	skew.warn()
	return results, nil
}

// answerBound is how long a followed stream's node has for its /version
// and its stream's first message: the shorter of --node-timeout and
// --request-timeout, with the flag that sets it; 0 for no bound.
func (o *CommonOptions) answerBound() (time.Duration, string) {
	// Connector has refused a --request-timeout that does not parse.
	requestTimeout, _ := o.requestTimeout()
	switch {
	case o.NodeTimeout > 0 && (requestTimeout <= 0 || o.NodeTimeout <= requestTimeout):
		return o.NodeTimeout, "--node-timeout=" + o.NodeTimeout.String()
	case requestTimeout > 0:
		return requestTimeout, "--request-timeout=" + requestTimeout.String()
	}
	return 0, ""
}

// agentLabel names the agent of node in an error that the fan-out may
// print after the node's name: "the agent", or with --agent-url, where.
func (o *CommonOptions) agentLabel(node string) string {
	if node == "" && o.Direct() {
		return "the agent at " + o.AgentURL
	}
	return "the agent"
}

// noAnswerError says that node's agent sent nothing within the bound flag
// (--node-timeout=10s) sets, and what to try.
func (o *CommonOptions) noAnswerError(node, flag string, cause error) error {
	check := fmt.Sprintf("is the node up and its agent ready (kubectl -n %s get pods -o wide --field-selector spec.nodeName=%s)?", client.AgentNamespace, node)
	if o.Direct() {
		check = "is it running, and the address reachable from here?"
	}
	name, _, _ := strings.Cut(flag, "=")
	last := ""
	if l := lastAttemptError(cause); l != "" {
		last = " (its last error: " + l + ")"
	}
	return &client.Error{Reason: client.ReasonTimeout, Err: cause,
		Message: fmt.Sprintf("%s did not answer within %s%s: %s Raise %s if the node is only slow (0: no limit)", o.agentLabel(node), flag, last, check, name)}
}

// lastAttemptError is the message of the last error of a watch's attempts
// to reach a node's agent that did not answer in time (connection refused,
// an API server's answer), without the URL of the request; "" when there
// was none.
func lastAttemptError(cause error) string {
	var na *client.NoAnswerError
	if !errors.As(cause, &na) || na.Last == nil {
		return ""
	}
	last := na.Last
	var ue *url.Error
	if errors.As(last, &ue) {
		last = ue.Err
	}
	return last.Error()
}

// withNodeTimeout bounds ask by --node-timeout, and says so when the bound
// is what ended it.
func withNodeTimeout[T any](o *CommonOptions, ask func(ctx context.Context, node string) (T, error)) func(ctx context.Context, node string) (T, error) {
	return func(ctx context.Context, node string) (T, error) {
		nodeCtx, cancel := context.WithTimeout(ctx, o.NodeTimeout)
		defer cancel()
		v, err := ask(nodeCtx, node)
		if err != nil && ctx.Err() == nil && errors.Is(nodeCtx.Err(), context.DeadlineExceeded) {
			err = o.noAnswerError(node, "--node-timeout="+o.NodeTimeout.String(), err)
		}
		return v, err
	}
}

// announceStreams says on stderr which nodes a streaming command reads,
// before their first event: watching when it follows them, reading when
// it reads their history.
func announceStreams(o *CommonOptions, nodes []string, follow bool) {
	verb := "reading"
	if follow {
		verb = "watching"
	}
	switch {
	case o.Direct():
		printers.PrintLine(o.ErrOut, "%s the agent at %s", verb, o.AgentURL)
	case len(nodes) == 1:
		printers.PrintLine(o.ErrOut, "%s node %s", verb, nodes[0])
	default:
		printers.PrintLine(o.ErrOut, "%s %d nodes: %s", verb, len(nodes), strings.Join(nodes, ", "))
	}
}

// splitResults returns the values of the nodes that answered, but those
// printed already; failed says whether any node failed.
func splitResults[T any](results []result[T]) (values []T, failed bool) {
	for _, r := range results {
		switch {
		case r.Err != nil:
			failed = true
		case !r.Printed:
			values = append(values, r.Value)
		}
	}
	return values, failed
}

// nodeError names node in err, as the fan-out prints a node's error; with
// --agent-url (no node) err names the agent itself.
func nodeError(node string, err error) error {
	if node == "" {
		return err
	}
	return fmt.Errorf("node %q: %w", node, err)
}

// printErrors prints the nodes' errors after the output.
func printErrors[T any](results []result[T], errOut io.Writer) {
	for _, r := range results {
		if r.Err == nil {
			continue
		}
		if r.Node == "" {
			printers.PrintLine(errOut, "error: %v", r.Err)
		} else {
			printers.PrintLine(errOut, "error: node %q: %v", r.Node, r.Err)
		}
	}
}

// finish prints the output of the nodes that answered with print, then the
// errors of the others; it fails when any node failed. With a single node
// the error is returned for main to print, with the node's name.
func finish[T any](results []result[T], errOut io.Writer, print func([]T) error) error {
	values, failed := splitResults(results)
	if len(results) == 1 && failed {
		return nodeError(results[0].Node, results[0].Err)
	}
	if answered := slices.ContainsFunc(results, func(r result[T]) bool { return r.Err == nil }); answered || !failed {
		if err := print(values); err != nil {
			return err
		}
	}
	printErrors(results, errOut)
	if failed {
		return errFailed
	}
	return nil
}
