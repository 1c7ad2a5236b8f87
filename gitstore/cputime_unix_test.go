//go:build unix

package gitstore

import (
	"syscall"
	"time"
)

// cpuTime returns the user plus system CPU time of this process and of its
// finished child processes (the git CLI), to report benchmark costs that do
// not depend on how busy a shared machine is.
func cpuTime() time.Duration {
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
