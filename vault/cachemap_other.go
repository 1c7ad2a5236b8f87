//go:build !linux

package vault

import (
	"io"
	"os"
)

// mapCacheFile reads the index cache file at p into memory; see the Linux
// version, which maps it instead.
func mapCacheFile(p string) (data []byte, written int64, release func(), drop func(b []byte), err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, nil, nil, err
	}
	data, release, drop, err = mapFile(f, fi.Size())
	return data, fi.ModTime().UnixNano(), release, drop, err
}

// mapFile reads the first size bytes of the open file f into memory; see
// the Linux version, which maps them instead.
func mapFile(f *os.File, size int64) (data []byte, release func(), drop func(b []byte), err error) {
	if size == 0 || size != int64(int(size)) {
		return nil, nil, nil, ErrBadCache
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, nil, nil, err
	}
	return data, func() {}, func([]byte) {}, nil
}
