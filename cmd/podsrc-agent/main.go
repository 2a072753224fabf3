// Command podsrc-agent runs podsrc on one node. It lives in a module of its
// own because the kubelet-exact static pod decoder it injects needs
// k8s.io/kubernetes, whose replace directives must stay out of the root
// module that kubectl-podsrc is installed from.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/agent"
	"github.com/podsrc/podsrc/pkg/staticpod/kubelet136"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := agent.NewCommand(kubelet136.New()).ExecuteContext(ctx)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "podsrc-agent:", err)
		os.Exit(1)
	}
}
