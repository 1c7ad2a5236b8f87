package gitstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's bytes [off, off+n)
// to the device without waiting, as git's core.fsyncMethod=batch does, so
// that the fsync which follows waits only for what is left. It is a hint:
// errors are ignored, and the fsync reports what matters.
func startWriteback(f *os.File, off, n int64) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	c.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
