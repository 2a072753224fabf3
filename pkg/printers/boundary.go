package printers

import (
	"fmt"
	"strings"
	"time"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// boundaryDetail says what a boundary event marks: an agent start over its
// journal, and how long no agent watched before it.
func boundaryDetail(b *v1alpha1.Boundary) string {
	if b == nil {
		return "the agent started"
	}
	var parts []string
	switch {
	case b.PreviousStop == "":
		parts = append(parts, "the agent started its journal")
	case b.Down != nil:
		d := b.Down.End.Sub(b.Down.Start.Time).Round(time.Second)
		parts = append(parts, fmt.Sprintf("the agent restarted (its last stop was %s); nothing was recorded from %s to %s (%s)",
			b.PreviousStop, b.Down.Start.UTC().Format(time.RFC3339), b.Down.End.UTC().Format(time.RFC3339), d))
	default:
		parts = append(parts, fmt.Sprintf("the agent restarted (its last stop was %s)", b.PreviousStop))
	}
	if b.AgentVersion != "" {
		parts = append(parts, "version "+b.AgentVersion)
	}
	if b.Damage != "" {
		parts = append(parts, "journal damaged: "+b.Damage)
	}
	if b.Discarded != "" {
		parts = append(parts, "journal events not served: "+b.Discarded)
	}
	return strings.Join(parts, "; ")
}
