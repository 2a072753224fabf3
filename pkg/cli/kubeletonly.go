package cli

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// kubeletOnly leaves out of watch and events the PLEG events the kubelet
// does not send (ContainerChanged, which it computes and never sends, and
// events its full PLEG channel dropped), which the agent keeps and serves
// for diagnosis: by default the stream shows what the kubelet itself acts
// on.
type kubeletOnly struct {
	// All shows every event (--all-events).
	All bool
}

// AddFlags binds --all-events to cmd.
func (k *kubeletOnly) AddFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&k.All, "all-events", k.All, "Also show the PLEG events the kubelet does not send: ContainerChanged, which it computes and never sends, and events its full PLEG channel dropped. --type shows those of the types it names.")
}

// Shows reports whether ev is shown under query q: an event the kubelet
// sends, or any with --all-events or when q's --type names its type.
func (k kubeletOnly) Shows(q v1alpha1.EventQuery, ev *v1alpha1.Event) bool {
	return k.All || ev == nil || ev.KubeletSends == nil || *ev.KubeletSends || slices.Contains(q.Types, ev.Type)
}
