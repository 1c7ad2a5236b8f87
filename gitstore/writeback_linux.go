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

// dropCache asks the kernel to drop f's clean pages from the page cache.
// A large tree object is written once per commit and read again only
// after a restart; kept cached, each commit's tree took fresh pages,
// which on a virtual machine cost several times what pages just freed
// cost (docs/git.md, "Server writes, third round (2026-12-02): the
// commit's wall time"). A hint: errors are ignored.
func dropCache(f *os.File) {
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	c.Control(func(fd uintptr) {
		unix.Fadvise(int(fd), 0, 0, unix.FADV_DONTNEED)
	})
}
