package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// nodeByNodeHelp ends the long description of the commands that print
// with printEach: when the output of each node is printed.
const nodeByNodeHelp = `

			With several nodes, a table holds each node's rows, rendered, as it
			answers, and prints them all once all nodes have answered, each column
			as wide as its widest cell, as kubectl get does; -o name and -o
			custom-columns print each node's rows as soon as it answers, in the
			order nodes answer. Both let each node's answer go once its rows are
			rendered; a table's rows count against --max-bytes. --sort-by, -o json,
			yaml, jsonpath and go-template print once all nodes have answered, in
			the order of the nodes, and hold all the answers within --max-bytes. On
			a terminal, stderr names the nodes still awaited.`

// nodeOutputOptions are what every command that asks agents and prints
// their answers shares: the nodes to ask and the output flags.
type nodeOutputOptions struct {
	*CommonOptions
	Nodes      NodeFlags
	PrintFlags *printers.PrintFlags
}

// addFlags registers the node selection and output flags.
func (o *nodeOutputOptions) addFlags(cmd *cobra.Command) {
	o.Nodes.AddFlags(cmd)
	o.PrintFlags.AddFlags(cmd)
}

// printOptions are what the commands that print one answer per node share:
// the nodes to ask, how to print, and the printer.
type printOptions struct {
	nodeOutputOptions
	printer printers.Printer
}

func newPrintOptions(common *CommonOptions) printOptions {
	f := printers.NewPrintFlags()
	f.List = true
	return printOptions{nodeOutputOptions: nodeOutputOptions{CommonOptions: common, PrintFlags: f}}
}

// Complete fills in the nodes and the printer.
func (o *printOptions) Complete(args []string) error {
	o.Nodes.Names = args
	p, err := o.PrintFlags.ToPrinter(o.Out, o.ErrOut, o.Now)
	if err != nil {
		return err
	}
	if hp, ok := p.(*printers.HumanPrinter); ok {
		hp.Budget = o.printBudget()
	}
	o.printer = p
	o.setScope("")
	return nil
}

// setScope tells the table printer where the command looked (in namespace,
// when given), for "No resources found".
func (o *printOptions) setScope(namespace string) {
	if hp, ok := o.printer.(*printers.HumanPrinter); ok {
		hp.Scope = o.Nodes.scope(o.CommonOptions, namespace)
	}
}

// Validate checks the common options and the node selection.
func (o *printOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	return o.Nodes.Validate(o.CommonOptions)
}

// answer is one node's answer with the agent that read it.
type answer[T any] struct {
	value T
	agent *client.Agent
}

// printEach asks every selected node's agent with call (a method
// expression such as (*client.Agent).Sources) and prints the answers as
// printable makes them, then the errors of the nodes that failed.
//
// A table, -o name and -o custom-columns without --sort-by take each
// node's rows as soon as it answers (printers.ChunkPrinter): -o name and
// -o custom-columns print them at once, a table holds them rendered, within
// --max-bytes, to align them all at the end (a node whose rows do not fit
// fails). The answer is let go, and what it took of --max-bytes given
// back, unless the tables that follow the first need it. The other formats take
// the answers of all nodes at once, all within --max-bytes: --sort-by
// orders them, and the machine-readable formats print one flat List
// whether one node or many answered.
func printEach[T any](ctx context.Context, o *printOptions, call func(*client.Agent, context.Context) (*T, error), printable func(answers []T) printers.Printable) error {
	var each func(result[answer[T]]) bool
	var chunkErr error
	// held are the nodes whose rows did not fit in --max-bytes.
	held := map[string]error{}
	chunks, chunked := printers.AsChunkPrinter(o.printer)
	if chunked {
		each = func(r result[answer[T]]) bool {
			if r.Err != nil || chunkErr != nil {
				return true
			}
			keep, err := chunks.PrintChunk(printable([]T{r.Value.value}), o.Out)
			var he *printers.HeldError
			if errors.As(err, &he) {
				held[r.Node], err = err, nil
			}
			chunkErr = err
			if !keep {
				r.Value.agent.Release()
			}
			return keep
		}
	}
	results, err := agentCallEach(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent, _ NodeVersion) (answer[T], error) {
		v, err := call(a, ctx)
		if err != nil {
			return answer[T]{}, err
		}
		return answer[T]{value: *v, agent: a}, nil
	}, each)
	if err != nil {
		return err
	}
	if chunkErr != nil {
		return fmt.Errorf("printing: %w", chunkErr)
	}
	for i, r := range results {
		if err := held[r.Node]; err != nil {
			results[i] = result[answer[T]]{Node: r.Node, Err: err}
		}
	}
	return finish(results, o.ErrOut, func(answers []answer[T]) error {
		values := make([]T, 0, len(answers))
		for _, a := range answers {
			values = append(values, a.value)
		}
		var err error
		if chunked {
			err = chunks.PrintRest(printable(values), o.Out)
		} else {
			err = o.printer.Print(printable(values), o.Out)
		}
		if err != nil {
			return fmt.Errorf("printing: %w", err)
		}
		return nil
	})
}
