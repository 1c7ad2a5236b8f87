//go:build !linux

package vault

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/memvault/memvault/parser"
)

// readFileInto reads the file at p into b's memory (b is reused from file
// to file) and returns its bytes and modification time. A file larger than
// limit is not read: the error wraps parser.ErrTooLarge.
func readFileInto(p string, b []byte, limit int64) ([]byte, time.Time, error) {
	// Open, then stat the open file: one path lookup instead of two.
	f, err := os.Open(p)
	if err != nil {
		return b[:0], time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return b[:0], time.Time{}, err
	}
	if fi.Size() > limit {
		return b[:0], fi.ModTime(), fmt.Errorf("%w: %d bytes, limit %d", parser.ErrTooLarge, fi.Size(), limit)
	}
	b = slices.Grow(b[:0], int(fi.Size())+512)
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
