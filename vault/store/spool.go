package store

import (
	"fmt"
	"os"
	"unsafe"
)

// Spool keeps the bodies of a load from files out of the heap: a
// load without a usable index cache reads every file, and their bodies
// were a third of such a load's live heap (docs/performance.md, "Storage
// engine"). Each body is appended to a temporary file in the cache folder as its memory is
// consumed, and the memory's Body emptied; once all files are read, the
// file is mapped and every parked body points into the mapping, as the
// bodies of a warm load point into the cache's. Pages of a file mapping
// are the kernel's to drop and read again, so the bodies no longer count
// against the process while nobody reads them.
//
// The temporary file's name is removed as soon as it is created (where
// the system allows it; elsewhere when it is mapped): nobody else can
// reach the file, to truncate it under the mapping, say. Its disk space is
// released when the process exits (the mapping lives as long as the
// strings that point into it). Its name matches the cache's temporary
// files, so one left by a killed process is removed by the next write
// (RemoveTemps).
//
// Any failure to write the file leaves the bodies not yet written on the
// heap, where they would have been without a spool: a spool saves memory,
// never data.
type Spool struct {
	f      *os.File
	dir    *os.Root // the cache folder
	name   string   // f's name in dir, "" once removed
	buf    []byte
	off    int64    // bytes of the file written before buf
	inBuf  []parked // bodies in buf, not yet written
	parked []parked // bodies in the file
	failed bool
	data   []byte // the mapping, after restore
	drop   func(b []byte)
}

type parked struct {
	body   *string
	off, n int64
}

const spoolBuffer = 1 << 20

// OpenSpool creates a spool file in the cache folder of the vault
// folder dir (see OpenDir), or returns nil when it cannot.
func OpenSpool(dir string) *Spool {
	d, err := OpenDir(dir, true)
	if err != nil {
		return nil
	}
	f, name, err := CreateTemp(d, IndexFileName+".tmp-spool-")
	if err != nil {
		d.Close()
		return nil
	}
	if d.Remove(name) == nil {
		name = ""
	}
	return &Spool{f: f, dir: d, name: name, buf: make([]byte, 0, spoolBuffer)}
}

// Park moves *body to the spool, leaving it empty until Restore. A nil
// spool parks nothing.
func (s *Spool) Park(body *string) {
	if s == nil || s.failed || *body == "" {
		return
	}
	if len(s.buf)+len(*body) > cap(s.buf) && len(s.buf) > 0 {
		s.flush()
		if s.failed {
			return
		}
	}
	s.inBuf = append(s.inBuf, parked{body: body, off: s.off + int64(len(s.buf)), n: int64(len(*body))})
	s.buf = append(s.buf, *body...)
	*body = ""
}

// flush writes the buffer. When that fails, the bodies in it go back to
// their memories and nothing more is parked.
func (s *Spool) flush() {
	if len(s.buf) == 0 {
		return
	}
	if _, err := s.f.Write(s.buf); err != nil {
		s.failed = true
		for _, p := range s.inBuf {
			i := p.off - s.off
			*p.body = string(s.buf[i : i+p.n])
		}
		s.inBuf = s.inBuf[:0]
		return
	}
	s.off += int64(len(s.buf))
	s.parked = append(s.parked, s.inBuf...)
	s.inBuf = s.inBuf[:0]
	if cap(s.buf) > spoolBuffer {
		s.buf = make([]byte, 0, spoolBuffer) // one large body grew it
	} else {
		s.buf = s.buf[:0]
	}
}

// Restore gives every parked body back to its place, pointing into the
// mapped spool, and removes the spool's file. The file is mapped through
// its open descriptor: a write of another process clearing killed
// processes' temporary files may have removed its name already. A nil
// spool has nothing to restore.
func (s *Spool) Restore() error {
	if s == nil {
		return nil
	}
	s.flush()
	defer s.dir.Close()
	if s.name != "" {
		defer s.dir.Remove(s.name)
	}
	defer s.f.Close()
	if len(s.parked) == 0 {
		return nil
	}
	// A failed flush put its bodies back; the ones parked before it are
	// all in the file.
	data, _, drop, err := MapFile(s.f, s.off)
	if err != nil {
		// No mapping (out of address space, say): the bodies go back
		// to the heap, where a load without a spool keeps them.
		var rerr error
		if data, rerr = ReadAll(s.f, s.off); rerr != nil {
			return fmt.Errorf("body spool %s: %w (read back: %w)", s.f.Name(), err, rerr)
		}
		drop = func([]byte) {}
	}
	str := unsafe.String(unsafe.SliceData(data), len(data))
	for _, p := range s.parked {
		*p.body = str[p.off : p.off+p.n]
	}
	s.data, s.drop = data, drop
	return nil
}

// Release lets the kernel drop the spool's pages that reading bodies made
// resident (see MapCacheFile); the bodies stay readable.
func (s *Spool) Release() {
	if s != nil && s.data != nil {
		s.drop(s.data)
	}
}
