package agent

import (
	"flag"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/staticpod"
)

// NewCommand returns the podsrc-agent command reproducing kubelet minor
// kubelet. decoder reproduces that kubelet's static pod decoding and
// newAdmission builds its admit handlers; the agent's main injects all
// three.
func NewCommand(kubelet kubeletminor.Minor, decoder staticpod.Decoder, newAdmission admission.NewAdmitHandler) *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "podsrc-agent",
		Short: "Re-run a node's kubelet pod sources, pod config merge and PLEG, and serve what they see",
		Long: `podsrc-agent runs on a node (as a DaemonSet with hostNetwork) and reproduces
what the node's kubelet sees: its static pod files, its static pod URL and the
API server's pods for the node, merged exactly as the kubelet merges them, and
the generic PLEG's view of the container runtime. It serves JSON snapshots and
a resumable event stream for kubectl podsrc.`,
		Example: `  # On a kubeadm node, with the host mounted at /host:
  podsrc-agent --host-root=/host --kubelet-config=/var/lib/kubelet/config.yaml

  # On a laptop, with a manifest directory only:
  podsrc-agent --node-name=dev --static-pod-path=./manifests --api-source=false \
    --runtime-endpoint="" --listen-address=127.0.0.1:10270 --probe-address=127.0.0.1:10272`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.Complete(cmd.Flags())
			if err != nil {
				return err
			}
			// The decoder reads the process's gates, as the kubelet's
			// code reads the kubelet's.
			unknown, err := setFeatureGates(utilfeature.DefaultMutableFeatureGate, cfg.Sources.FeatureGates)
			if err != nil {
				return fmt.Errorf("the kubelet's featureGates (--kubelet-config, --feature-gates): %w", err)
			}
			if len(unknown) > 0 {
				klog.InfoS("Kubelet feature gates this agent's kubelet code does not know are ignored", "gates", unknown, "kubeletVersion", decoder.KubeletVersion())
			}
			// The admit handlers read the same gates, and the kubelet's
			// allowedUnsafeSysctls.
			if newAdmission != nil {
				admCfg := cfg.AdmissionConfig()
				cfg.AdmissionSettings = admCfg.Settings()
				if cfg.Admission, err = newAdmission(cmd.Context(), admCfg); err != nil {
					return fmt.Errorf("building the admit handlers of kubelet %s: %w", decoder.KubeletVersion(), err)
				}
			}
			tuneGC()
			a, err := New(cfg, kubelet, decoder)
			if err != nil {
				return err
			}
			lis, err := net.Listen("tcp", cfg.ListenAddress)
			if err != nil {
				return fmt.Errorf("--listen-address %s: %w", cfg.ListenAddress, err)
			}
			var probes net.Listener
			if cfg.ProbeAddress != "" {
				if probes, err = net.Listen("tcp", cfg.ProbeAddress); err != nil {
					_ = lis.Close()
					return fmt.Errorf("--probe-address %s: %w", cfg.ProbeAddress, err)
				}
			}
			return a.Run(cmd.Context(), lis, probes)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.AddCommand(newReplayCommand(kubelet, newAdmission))
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	cmd.Flags().AddGoFlagSet(klogFlags)
	return cmd
}
