package vault

import (
	"fmt"
	"io/fs"
	"slices"
	"syscall"
	"time"

	"github.com/memvault/memvault/parser"
)

// readFileInto reads the file at p into b's memory (b is reused from file
// to file) and returns its bytes and modification time. A file larger than
// limit is not read: the error wraps parser.ErrTooLarge.
//
// It calls the system directly: os.Open also puts the file into
// non-blocking mode, tries to register it with the poller and takes it
// back out, six system calls where one is needed, and a bulk load opens
// every file. Reading stops at the size fstat reported, which saves the
// read that would only find the end; a file that reports no size is read
// to its end.
func readFileInto(p string, b []byte, limit int64) ([]byte, time.Time, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return b[:0], time.Time{}, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return b[:0], time.Time{}, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	mod := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
	size := int64(st.Size)
	if size > limit {
		return b[:0], mod, fmt.Errorf("%w: %d bytes, limit %d", parser.ErrTooLarge, size, limit)
	}
	b = slices.Grow(b[:0], int(size)+512)
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, 4096)
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return b, mod, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n <= 0 {
			return b, mod, nil
		}
		b = b[:len(b)+n]
		if size > 0 && int64(len(b)) >= size {
			return b, mod, nil
		}
	}
}
