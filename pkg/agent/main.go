package agent

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// Main runs the podsrc-agent command reproducing kubelet minor kubelet,
// with that minor's decoder and newAdmission, until SIGINT or SIGTERM and
// returns the process's exit code. Each agent build's main (one per
// kubelet minor, each linking that minor's decoder and admit handlers) is
// a call of it.
func Main(kubelet kubeletminor.Minor, decoder staticpod.Decoder, newAdmission admission.NewAdmitHandler) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := NewCommand(kubelet, decoder, newAdmission).ExecuteContext(ctx)
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "podsrc-agent:", err)
		return 1
	}
	return 0
}
