//go:build unix

package gitstore

import (
	"errors"
	"os"
	"syscall"
)

// processGone reports whether no process has pid: kill(pid, 0) fails with
// ESRCH. EPERM means a process of another user runs under it.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// lockRecord takes an exclusive flock on an owner record.
func lockRecord(f *os.File) (unlock func(), err error) {
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() { syscall.Flock(fd, syscall.LOCK_UN) }, nil
}
