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
	data = make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, 0, nil, nil, err
	}
	return data, fi.ModTime().UnixNano(), func() {}, func([]byte) {}, nil
}
