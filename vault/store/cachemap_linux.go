package store

import (
	"os"
	"syscall"
)

// MapsFiles says MapFile maps (rather than reads): only then can another
// program's truncation of the file fault the process (see privateCopy).
const MapsFiles = true

// MapFile maps the first size bytes of the open file f read-only. The
// memories and the index restored from the index cache point into the
// mapping instead of into a copy on the heap, so the kernel keeps only
// the pages something reads (a result's body, a query term's postings)
// and can drop them again under pressure: most of a large vault's cache
// is bodies nobody asks for (docs/performance.md, "Storage engine"). The
// mapping stays valid when
// f is closed or its name removed, and is never unmapped once a load uses
// it, as strings of the vault point into it; the cache file is only ever
// replaced by a rename, which leaves the mapped file as it was. release
// unmaps it while nothing points into it yet; drop lets the kernel
// reclaim the pages of b, a part of the mapping (see madvise(2),
// MADV_DONTNEED: a private file mapping reads them again from the file
// when next touched).
func MapFile(f *os.File, size int64) (data []byte, release func(), drop func(b []byte), err error) {
	if size == 0 || size != int64(int(size)) {
		return nil, nil, nil, ErrBadCache
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, nil, err
	}
	page := os.Getpagesize()
	drop = func(b []byte) {
		// Whole pages of b only (the last page of the file counts as
		// whole); b is data[off:off+len(b)], so its capacity gives off.
		off := cap(data) - cap(b)
		start := (off + page - 1) / page * page
		end := off + len(b)
		if end < len(data) {
			end = end / page * page
		}
		if end > start {
			_ = syscall.Madvise(data[start:end], syscall.MADV_DONTNEED)
		}
	}
	return data, func() { _ = syscall.Munmap(data) }, drop, nil
}
