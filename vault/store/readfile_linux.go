package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/memvault/memvault/parser"
)

// FileReader reads memory files for one goroutine. It reuses its buffer
// from file to file and keeps the last folder open, so that opening a file
// looks up one name instead of the whole path.
//
// It calls the system directly: os.Open also puts the file into
// non-blocking mode, tries to register it with the poller and takes it
// back out, six system calls where one is needed, and a bulk load opens
// every file.
type FileReader struct {
	// Linked is the error (in a *fs.PathError) Read returns for a file
	// that is a symbolic link: such a file is never read.
	Linked error
	buf    []byte
	dir    string // the folder dirFD is open on; "" for none
	dirFD  int
	name   []byte // StatKey's NUL-terminated name, reused
}

// Read reads the file name in folder dir into r's buffer (valid until the
// next read) and returns its bytes and modification time. A file larger
// than limit is not read: the error wraps parser.ErrTooLarge. Reading
// stops at the size fstat reported, which saves the read that would only
// find the end; a file that reports no size is read to its end.
func (r *FileReader) Read(dir, name string, limit int64) ([]byte, time.Time, error) {
	// The full path is only needed in errors.
	p := func() string { return filepath.Join(dir, name) }
	fd, err := r.open(dir, name)
	if err == syscall.ELOOP {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: p(), Err: r.Linked}
	}
	if err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: p(), Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "stat", Path: p(), Err: err}
	}
	mod := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
	size := int64(st.Size)
	if size > limit {
		return nil, mod, fmt.Errorf("%w: %d bytes, limit %d", parser.ErrTooLarge, size, limit)
	}
	b := slices.Grow(r.buf[:0], int(size)+512)
	defer func() { r.buf = b[:0] }()
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, 4096)
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, mod, &fs.PathError{Op: "read", Path: p(), Err: err}
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

// open opens dir/name for reading, through the open folder when it can.
// A linked file is not opened (ELOOP): see the vault's LinkedFiles.
func (r *FileReader) open(dir, name string) (int, error) {
	if r.dir != dir {
		r.Close()
		fd, err := openRetry(func() (int, error) {
			return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		})
		if err == nil {
			r.dir, r.dirFD = dir, fd
		}
	}
	if r.dir == dir {
		return openRetry(func() (int, error) {
			return syscall.Openat(r.dirFD, name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		})
	}
	// The folder did not open: the full path gives the error to report.
	return openRetry(func() (int, error) {
		return syscall.Open(filepath.Join(dir, name), syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	})
}

// Close closes the open folder, if any.
func (r *FileReader) Close() {
	if r.dir != "" {
		syscall.Close(r.dirFD)
		r.dir = ""
	}
}

func openRetry(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != syscall.EINTR {
			return err
		}
	}
}

// StatKey stats dir/name, following a link, and returns what says the
// file is unchanged (see vault/load's headers-only load). It looks the name up in the open
// folder, as read does, rather than walking the whole path per file.
func (r *FileReader) StatKey(dir, name string) (StatKey, bool) {
	var st syscall.Stat_t
	var err error
	if nr := int(sysFstatat); nr >= 0 && r.useDir(dir) {
		// syscall.BytePtrFromString would allocate for each file.
		if strings.IndexByte(name, 0) >= 0 {
			return StatKey{}, false
		}
		r.name = append(append(r.name[:0], name...), 0)
		p := &r.name[0]
		err = ignoringEINTR(func() error {
			_, _, e := syscall.Syscall6(uintptr(nr), uintptr(r.dirFD), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
			if e != 0 {
				return e
			}
			return nil
		})
	} else {
		p := filepath.Join(dir, name)
		err = ignoringEINTR(func() error { return syscall.Stat(p, &st) })
	}
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return StatKey{}, false
	}
	return keyOf(&st), true
}

// useDir makes dir the open folder, and reports whether it is.
func (r *FileReader) useDir(dir string) bool {
	if r.dir != dir {
		r.Close()
		fd, err := openRetry(func() (int, error) {
			return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		})
		if err == nil {
			r.dir, r.dirFD = dir, fd
		}
	}
	return r.dir == dir
}

// FileStatKey returns the stat data of an open file (a folder, for
// FolderRec).
func FileStatKey(f *os.File) (StatKey, bool) {
	fi, err := f.Stat()
	if err != nil {
		return StatKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return StatKey{}, false
	}
	return keyOf(st), true
}

// FolderStatKey stats the folder p, following links.
func FolderStatKey(p string) (StatKey, bool) {
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Stat(p, &st) }); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return StatKey{}, false
	}
	return keyOf(&st), true
}

// keyOf is the part of st that says a file or folder is unchanged.
func keyOf(st *syscall.Stat_t) StatKey {
	return StatKey{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}
}
