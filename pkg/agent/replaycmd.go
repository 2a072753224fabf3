package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/podsrc/podsrc/pkg/admission"
	"github.com/podsrc/podsrc/pkg/archive"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
	"github.com/podsrc/podsrc/pkg/kubeletsemantics"
	"github.com/podsrc/podsrc/pkg/replay"
)

// ReplayOptions are podsrc-agent replay's.
type ReplayOptions struct {
	// File is the archive (kubectl podsrc record's).
	File string
	// Output is -o: text, or json for the report.
	Output string
	// MaxBytes bounds what is read of the archive.
	MaxBytes resource.QuantityValue

	kubelet      kubeletminor.Minor
	newAdmission admission.NewAdmitHandler
	out          io.Writer
}

// newReplayCommand returns podsrc-agent replay for kubelet minor kubelet.
func newReplayCommand(kubelet kubeletminor.Minor, newAdmission admission.NewAdmitHandler) *cobra.Command {
	o := &ReplayOptions{Output: "text", MaxBytes: resource.QuantityValue{Quantity: *resource.NewQuantity(4*archive.DefaultMaxSize, resource.BinarySI)}, kubelet: kubelet, newAdmission: newAdmission}
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a node's recording through this kubelet minor's code, and report where it differs",
		Long: `replay reads an archive that kubectl podsrc record wrote and feeds what the
agent took in (the sources' updates, in the order the merge took them, the
Node, and what the container runtime answered the PLEG) through this
build's kubelet minor: its merge, its PLEG, its sync loop and its admit
handlers, agent process by agent process. It prints every event where the
replay differs from what the agent recorded, and exits 1 if any does; none
on a healthy recording. Replay an archive with the podsrc-agent of its
kubelet minor (kubectl podsrc version --from FILE names it).`,
		Example:       `  podsrc-agent replay node-1.tar.gz`,
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Complete(cmd, args)
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "The report's format: text, or json.")
	cmd.Flags().Var(&o.MaxBytes, "max-bytes", "The most bytes read of the archive's members, uncompressed.")
	return cmd
}

// Complete takes the archive's path and where to print.
func (o *ReplayOptions) Complete(cmd *cobra.Command, args []string) {
	o.File = args[0]
	o.out = cmd.OutOrStdout()
}

// Validate checks the flags.
func (o *ReplayOptions) Validate() error {
	if o.Output != "text" && o.Output != "json" {
		return fmt.Errorf("-o %q: want text or json", o.Output)
	}
	if o.MaxBytes.Value() <= 0 {
		return fmt.Errorf("--max-bytes %s: want a size such as 256Mi", o.MaxBytes.String())
	}
	return nil
}

// Run replays the archive and prints the report; an error when the
// replay differs.
func (o *ReplayOptions) Run(ctx context.Context) error {
	a, err := archive.ReadFile(o.File, o.MaxBytes.Value())
	if err != nil {
		return err
	}
	recorded, err := kubeletminor.Parse(a.Version.ReproducedKubeletVersion)
	if err != nil {
		return fmt.Errorf("%s: the kubelet minor that recorded it: %w", o.File, err)
	}
	if recorded != o.kubelet {
		return fmt.Errorf("%s was recorded by the agent for kubelet %s: replay it with the podsrc-agent built for %s, not this one for %s",
			o.File, recorded, recorded, o.kubelet)
	}
	sem, err := kubeletsemantics.Of(o.kubelet)
	if err != nil {
		return err
	}
	report, err := replay.Run(ctx, a.Events, replay.Kubelet{
		Merge: sem.Merge, PLEG: sem.PLEG, SyncLoop: sem.SyncLoop, NewAdmission: o.newAdmission,
		SetFeatureGates: func(gates map[string]bool) error {
			_, err := setFeatureGates(utilfeature.DefaultMutableFeatureGate, gates)
			return err
		},
	})
	if err != nil {
		return fmt.Errorf("replaying %s: %w", o.File, err)
	}
	if o.Output == "json" {
		enc := json.NewEncoder(o.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else if err := replay.PrintReport(o.out, o.File, report); err != nil {
		return err
	}
	if n := report.Differences(); n > 0 {
		return fmt.Errorf("%s: the replay through kubelet %s differs from the recording at %d events", o.File, o.kubelet, n)
	}
	return nil
}
