//go:build unix

package pleg

import (
	"syscall"
	"time"
)

// processCPUTime returns the user and system CPU time the test process used.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
