//go:build !linux

package store

import "os"

// MapsFiles says MapFile maps (rather than reads) the file.
const MapsFiles = false

// MapFile reads the first size bytes of the open file f into memory; the
// Linux version maps them instead.
func MapFile(f *os.File, size int64) (data []byte, release func(), drop func(b []byte), err error) {
	if size == 0 || size != int64(int(size)) {
		return nil, nil, nil, ErrBadCache
	}
	data, err = ReadAll(f, size)
	if err != nil {
		return nil, nil, nil, err
	}
	return data, func() {}, func([]byte) {}, nil
}
