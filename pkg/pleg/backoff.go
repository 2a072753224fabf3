package pleg

import (
	"math"

	"k8s.io/apimachinery/pkg/util/wait"
)

// relistBackoff returns the pauses after consecutive failed relists, one
// Step per failure: the relist period after the first, doubled after each
// further one, capped at MaxBackoff, without jitter. Run starts it over
// once a relist succeeds.
func (o Options) relistBackoff() wait.Backoff {
	return wait.Backoff{Duration: o.RelistPeriod, Factor: 2, Cap: o.MaxBackoff, Steps: math.MaxInt32}
}
