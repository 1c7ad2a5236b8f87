//go:build !linux

package gitstore

import "os"

// startWriteback does nothing where there is no sync_file_range: the fsync
// that follows writes everything.
func startWriteback(f *os.File, off, n int64) {}

// dropCache does nothing where there is no posix_fadvise.
func dropCache(f *os.File) {}
