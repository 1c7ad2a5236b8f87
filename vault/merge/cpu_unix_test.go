//go:build unix

package merge

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time, user and system: on a loaded machine
// it measures a benchmark's work where wall time measures the queue.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
