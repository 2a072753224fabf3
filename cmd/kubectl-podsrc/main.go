// Command kubectl-podsrc is the kubectl plugin of podsrc: `kubectl podsrc`
// shows what a node's kubelet sees.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/podsrc/podsrc/pkg/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := cli.NewRootCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := root.ExecuteContext(ctx); err != nil {
		if !cli.ErrSilent(err) {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
		}
		stop()
		os.Exit(1)
	}
}
