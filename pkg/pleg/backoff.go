package pleg

import "time"

// retryDelay is the pause before the next relist after failures consecutive
// failed relists: the relist period, doubled per failure after the first,
// capped at maxDelay.
func retryDelay(period, maxDelay time.Duration, failures int) time.Duration {
	d := period
	for i := 1; i < failures && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}
