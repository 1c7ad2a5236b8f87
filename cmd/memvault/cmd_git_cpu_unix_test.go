//go:build unix

package main

import (
	"os"
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used so far:
// on a shared machine it varies less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxRSSKB is the peak resident set of an exited child process, in KiB
// (Linux reports ru_maxrss in KiB).
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
