package agent

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Kubelet is the code of one kubelet minor that an agent build links.
type Kubelet struct {
	// Decoder decodes static pods as that minor does.
	Decoder staticpod.Decoder
	// NewAdmission builds that minor's chain of admit handlers for the
	// kubelet's configuration; nil leaves every admission verdict unknown.
	NewAdmission func(context.Context, admission.Config) (admission.Handlers, error)
}

// Main runs the podsrc-agent command with k until SIGINT or SIGTERM and
// returns the process's exit code. Each agent build's main (one per kubelet
// minor, each linking that minor's code) is a call of it.
func Main(k Kubelet) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := NewCommand(k).ExecuteContext(ctx)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "podsrc-agent:", err)
		return 1
	}
	return 0
}
