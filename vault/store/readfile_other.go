//go:build !linux

package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/memvault/memvault/parser"
)

// FileReader reads memory files for one goroutine, reusing its buffer from
// file to file.
type FileReader struct {
	// Linked is the error (in a *fs.PathError) Read returns for a file
	// that is a symbolic link: such a file is never read.
	Linked error
	buf    []byte
}

// Read reads the file name in folder dir into r's buffer (valid until the
// next read) and returns its bytes and modification time. A file larger
// than limit is not read: the error wraps parser.ErrTooLarge.
func (r *FileReader) Read(dir, name string, limit int64) ([]byte, time.Time, error) {
	// A linked file is not read (see the vault's LinkedFiles). The check and the
	// open are two steps; a link planted between them is read once.
	if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: r.Linked}
	}
	// Open, then stat the open file: one path lookup instead of two.
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	if fi.Size() > limit {
		return nil, fi.ModTime(), fmt.Errorf("%w: %d bytes, limit %d", parser.ErrTooLarge, fi.Size(), limit)
	}
	b := slices.Grow(r.buf[:0], int(fi.Size())+512)
	defer func() { r.buf = b[:0] }()
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, fi.ModTime(), err
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, 4096)
		}
	}
}

// Close releases what r holds open: nothing here.
func (r *FileReader) Close() {}

// StatKey reports no key: without a portable change time and inode, a
// cached header cannot be trusted, so a headers-only vault reads every
// file (see vault/load's headers-only load).
func (r *FileReader) StatKey(dir, name string) (StatKey, bool) { return StatKey{}, false }

// FileStatKey reports no key here (see StatKey): folder listings are
// not cached.
func FileStatKey(f *os.File) (StatKey, bool) { return StatKey{}, false }

// FolderStatKey reports no key here (see StatKey).
func FolderStatKey(p string) (StatKey, bool) { return StatKey{}, false }
