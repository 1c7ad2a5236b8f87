//go:build linux

package vault

import (
	"syscall"
	"time"
	"unsafe"
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

// threadCPU returns the CPU time the calling OS thread has used; with the
// goroutine locked to its thread it measures one recall's own work,
// whatever else the machine is running.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
