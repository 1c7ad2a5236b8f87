//go:build linux

package vault

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) of the whole process:
// on a shared machine it shows the work a load does, whatever the wall
// clock says.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
