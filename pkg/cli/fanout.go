package cli

import (
	"context"
	"io"
	"sync"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// result is the outcome of one node's request.
type result[T any] struct {
	Node  string
	Value T
	Err   error
}

// fanOut runs fn for every node, at most limit at once, and returns the
// results in the order of nodes.
func fanOut[T any](ctx context.Context, nodes []string, limit int, fn func(ctx context.Context, node string) (T, error)) []result[T] {
	out := make([]result[T], len(nodes))
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = result[T]{Node: n, Err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			v, err := fn(ctx, n)
			out[i] = result[T]{Node: n, Value: v, Err: err}
		}()
	}
	wg.Wait()
	return out
}

// agentCall runs call against the agent of every node, at most
// --max-concurrency at once (a streaming command: all at once). Before the
// call it learns the versions of the node's agent and kubelet, which call
// gets, and warns on stderr about skew, once for the whole command. A
// node whose agent does not answer /version fails at once, as call would;
// a streaming command's call gets a zero NodeVersion instead unless the
// failure is permanent, and retries on its own. A streaming command's
// node errors are printed when they happen, while the other nodes go on.
func agentCall[T any](ctx context.Context, o *CommonOptions, nf *NodeFlags, call func(ctx context.Context, a *client.Agent, v NodeVersion) (T, error)) ([]result[T], error) {
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
	skew := newSkewCheck(o.ErrOut, len(nodes), nodeClient, kubelets)
	limit := nf.MaxConcurrency
	if nf.Streaming {
		limit = len(nodes)
	}
	results := fanOut(ctx, nodes, limit, func(ctx context.Context, node string) (T, error) {
		v, err := func() (T, error) {
			var zero T
			a, err := conn.Agent(node)
			if err != nil {
				skew.checked()
				return zero, err
			}
			v, err := skew.check(ctx, a)
			if err != nil && (!nf.Streaming || client.IsPermanent(err)) {
				return zero, err
			}
			return call(ctx, a, v)
		}()
		if err != nil && nf.Streaming {
			// The other nodes' streams go on: say so now.
			printErrors([]result[T]{{Node: node, Err: err}}, o.ErrOut)
		}
		return v, err
	})
	// Nodes the fan-out never reached (the context ended) were not counted.
	skew.warn()
	return results, nil
}

// splitResults returns the values of the nodes that answered; failed says
// whether any node failed.
func splitResults[T any](results []result[T]) (values []T, failed bool) {
	for _, r := range results {
		if r.Err == nil {
			values = append(values, r.Value)
		}
	}
	return values, len(values) < len(results)
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
// the error is returned for main to print.
func finish[T any](results []result[T], errOut io.Writer, print func([]T) error) error {
	values, failed := splitResults(results)
	if len(results) == 1 && failed {
		return results[0].Err
	}
	if len(values) > 0 || !failed {
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
