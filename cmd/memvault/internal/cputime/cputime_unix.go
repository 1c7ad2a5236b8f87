//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time of this process and of
// its finished child processes (the git CLI).
func Process() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}
