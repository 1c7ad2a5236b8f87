package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strings"
)

// The index cache is one file in the cache folder (IndexFileName) that
// keeps, between processes, what loading a vault computes from each
// file's bytes alone; the vault package says what it memoises and when a
// record is trusted (vault/load/indexcache.go). This file is its format: M is the
// vault's memory type, whose fields a Codec writes and reads.
//
// Format, little endian, in the encoding of Writer: the magic
// "MVCACHE\0", the format version, the writer's key (the program, see
// ExecutableStamp), the file size limit; the folder listings (count, then
// per folder its path, stat data, files and subfolders); the records
// (count, then per record its path, stat data, 32 bytes of SHA-256, the
// 32-byte key and its memory's fields, the body as its offset and length
// in the body section); a flag and, when set, the 32-byte build digest,
// the key of each memory the build inserted (count, 32 bytes each), how
// many DocIDs the build gave away, the index snapshot (length, then a
// byte saying how many zero bytes follow so that the snapshot starts at
// a multiple of 8 bytes into the file, which lets a mapped cache's term
// tables be used in place, then the bytes); the body section (length,
// the bodies back to back); finally the trailer (see Writer.Close). The
// size is checked before anything else is read: a file grown by a tail
// (say gigabytes of sparse zeros) is refused at once, not after a
// checksum over all of it.

const (
	// IndexMagic starts an index cache file.
	IndexMagic = "MVCACHE\x00"
	// IndexVersion is the index cache's format version.
	IndexVersion = 7
	// DropEvery is how many bytes are read or written through a mapped
	// cache between two calls letting its pages go (see MapFile).
	DropEvery = 8 << 20
)

// Record is one file as the index cache records it: its stat data, the
// SHA-256 of the bytes read, a key (the vault's: a hash of what the index
// of the memory is made of, see vault's memoryKey) and the memory made of
// the bytes.
type Record[M any] struct {
	Rel  string
	Stat StatKey
	Sum  [sha256.Size]byte
	Key  [sha256.Size]byte
	Mem  *M
}

// Codec writes and reads the vault's memories in records.
type Codec[M any] interface {
	// Prepare sees the memories records are decoded into, before any
	// is: it may write into each (see Prefault) and allocate what they
	// share.
	Prepare(mems []M)
	// Encode writes m's fields, its body as its offset off in the body
	// section and its length.
	Encode(w *Writer, m *M, off int)
	// Decode reads what Encode wrote into m, the memory of rec, the
	// i-th record, and returns its body's offset and length. A memory
	// the loader could not have made fails r.
	Decode(r *Reader, i int, rec *Record[M], m *M) (off, n uint64)
	// Body points at m's body.
	Body(m *M) *string
}

// Cache is a decoded index cache. The memories and the snapshot point
// into the file's mapping.
type Cache[M any] struct {
	Written int64 // the file's modification time, Unix nanoseconds
	Folders []FolderRec
	Recs    []Record[M]       // in path order
	Digest  [sha256.Size]byte // of the build the snapshot comes from
	Snap    []byte            // index snapshot; nil when none was kept
	Keys    []byte            // the build's key of each DocID, 32 bytes each
	Swaps   int               // how many DocIDs the build gave to other files
	drop    func()
	release func()
}

// Lookup returns the record of rel, or nil.
func (c *Cache[M]) Lookup(rel string) *Record[M] {
	if c == nil {
		return nil
	}
	if i := c.Search(rel); i < len(c.Recs) && c.Recs[i].Rel == rel {
		return &c.Recs[i]
	}
	return nil
}

// Search returns the index of the first record whose path is not before
// rel.
func (c *Cache[M]) Search(rel string) int {
	return sort.Search(len(c.Recs), func(i int) bool { return c.Recs[i].Rel >= rel })
}

// Drop lets the memory the cache file takes be reclaimed: what is read
// from it later is read again (see MapFile).
func (c *Cache[M]) Drop() { c.drop() }

// IndexFile is a mapped index cache whose header and folder listings are
// decoded; the rest is decoded, and the checksum taken, apart.
type IndexFile[M any] struct {
	data    []byte
	Written int64 // the file's modification time, Unix nanoseconds
	release func()
	drop    func(b []byte)
	r       *Reader // at the records
	Folders []FolderRec
}

// OpenIndex maps the index cache of the vault folder dir, written by the
// program key with the file size limit maxSize, and decodes its header
// and folder listings, or returns nil. With private, it maps a copy (see
// MapCacheFile).
func OpenIndex[M any](dir, key string, maxSize int64, private bool) *IndexFile[M] {
	d, err := OpenDir(dir, false)
	if err != nil {
		return nil
	}
	defer d.Close()
	data, written, release, drop, err := MapCacheFile(d, IndexFileName, private, checkIndexSize)
	if err != nil {
		return nil
	}
	r, folders, err := decodeIndexHead(data, key, maxSize)
	if err != nil {
		release()
		return nil
	}
	return &IndexFile[M]{data: data, Written: written, release: release, drop: drop, r: r, Folders: folders}
}

// Release unmaps the file, while nothing points into it.
func (f *IndexFile[M]) Release() { f.release() }

// Checksum reports whether the file's CRC-32 is right. It is computed a
// few megabytes at a time, each dropped from memory once summed, so that
// checking a large cache does not make all of it resident at once.
func (f *IndexFile[M]) Checksum() bool {
	body := f.data[:len(f.data)-4]
	crc := crc32.NewIEEE()
	const chunk = 4 << 20
	for i := 0; i < len(body); i += chunk {
		part := body[i:min(len(body), i+chunk)]
		crc.Write(part)
		f.drop(part)
	}
	return binary.LittleEndian.Uint32(f.data[len(f.data)-4:]) == crc.Sum32()
}

// DecodeRest decodes the records and the rest after the folders, or
// returns nil. Nothing it returns is to be trusted before Checksum has
// checked out.
func (f *IndexFile[M]) DecodeRest(codec Codec[M]) *Cache[M] {
	c, err := decodeIndexRest(f.r, codec)
	if err != nil {
		return nil
	}
	data := f.data
	c.Folders, c.Written, c.drop, c.release = f.Folders, f.Written, func() { f.drop(data) }, f.release
	return c
}

// checkIndexSize refuses an index cache file whose size is not the one
// its trailer declares, reading the trailer alone.
func checkIndexSize(f *os.File, size int64) error {
	var tail [Trailer]byte
	if size < Trailer {
		return fmt.Errorf("%w: %d bytes", ErrBadCache, size)
	}
	if _, err := f.ReadAt(tail[:], size-Trailer); err != nil {
		return fmt.Errorf("%w: trailer: %w", ErrBadCache, err)
	}
	if declared := binary.LittleEndian.Uint64(tail[:8]); declared != uint64(size) {
		return fmt.Errorf("%w: %d bytes, its trailer declares %d", ErrBadCache, size, declared)
	}
	return nil
}

// DecodeIndex decodes and checks a whole index cache written with key and
// the file size limit maxSize. The memories it returns share data's
// memory, which must not change afterwards.
func DecodeIndex[M any](data []byte, key string, maxSize int64, codec Codec[M]) (*Cache[M], error) {
	if len(data) < len(IndexMagic)+Trailer {
		return nil, fmt.Errorf("%w: not an index cache", ErrBadCache)
	}
	if binary.LittleEndian.Uint32(data[len(data)-4:]) != crc32.ChecksumIEEE(data[:len(data)-4]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadCache)
	}
	r, folders, err := decodeIndexHead(data, key, maxSize)
	if err != nil {
		return nil, err
	}
	c, err := decodeIndexRest(r, codec)
	if err != nil {
		return nil, err
	}
	c.Folders = folders
	return c, nil
}

// decodeIndexHead decodes a cache's header and folder listings, and
// returns a reader at its records.
func decodeIndexHead(data []byte, key string, maxSize int64) (*Reader, []FolderRec, error) {
	if len(data) < len(IndexMagic)+Trailer || string(data[:len(IndexMagic)]) != IndexMagic {
		return nil, nil, fmt.Errorf("%w: not an index cache", ErrBadCache)
	}
	if n := binary.LittleEndian.Uint64(data[len(data)-Trailer:]); n != uint64(len(data)) {
		return nil, nil, fmt.Errorf("%w: %d bytes, its trailer declares %d", ErrBadCache, len(data), n)
	}
	r := NewReader(data[:len(data)-Trailer], len(IndexMagic))
	if ver := r.Uv(); r.Err() == nil && ver != IndexVersion {
		return nil, nil, fmt.Errorf("%w: format %d, want %d", ErrBadCache, ver, IndexVersion)
	}
	if k := r.Str(); r.Err() == nil && k != key {
		return nil, nil, fmt.Errorf("%w: written by another program (%q)", ErrBadCache, k)
	}
	if m := r.Uv(); r.Err() == nil && m != uint64(maxSize) {
		return nil, nil, fmt.Errorf("%w: file size limit %d, want %d", ErrBadCache, m, maxSize)
	}
	folders := make([]FolderRec, r.Count(1+4+2))
	for i := range folders {
		f := &folders[i]
		f.Rel = r.Str()
		f.Stat = r.Stat()
		f.Files, f.Subdirs = r.Strs(), r.Strs()
		if r.Err() != nil {
			break
		}
		if i > 0 && f.Rel <= folders[i-1].Rel || !folderListingValid(f) {
			r.Fail("folder %q out of order or listing what it cannot hold", f.Rel)
			break
		}
	}
	if r.Err() != nil {
		return nil, nil, r.Err()
	}
	return r, folders, nil
}

// folderListingValid reports whether f lists files and folders directly
// in its folder, files in path order, as a listing gives them.
func folderListingValid(f *FolderRec) bool {
	prefix := ""
	if f.Rel != "" {
		if strings.HasPrefix(f.Rel, "/") || strings.HasSuffix(f.Rel, "/") {
			return false
		}
		prefix = f.Rel + "/"
	}
	direct := func(p string) bool {
		name, ok := strings.CutPrefix(p, prefix)
		return ok && name != "" && !strings.Contains(name, "/") && !strings.HasPrefix(name, ".")
	}
	for i, p := range f.Files {
		if !direct(p) || !IsMemoryPath(p) || i > 0 && p <= f.Files[i-1] {
			return false
		}
	}
	for _, p := range f.Subdirs {
		if !direct(p) {
			return false
		}
	}
	return true
}

// decodeIndexRest decodes the records and what follows them.
func decodeIndexRest[M any](r *Reader, codec Codec[M]) (*Cache[M], error) {
	c := &Cache[M]{}
	c.Recs = make([]Record[M], r.Count(1+4+2*sha256.Size+20))
	type span struct{ off, n uint64 }
	bodies := make([]span, len(c.Recs))
	// The memories are allocated together, one allocation instead of
	// one per memory: a vault keeps them all anyway.
	mems := make([]M, len(c.Recs))
	for i := range c.Recs { // see Prefault
		c.Recs[i].Stat.Size = 0
	}
	codec.Prepare(mems)
	for i := range c.Recs {
		rec := &c.Recs[i]
		rec.Rel = r.Str()
		rec.Stat = r.Stat()
		copy(rec.Sum[:], r.Bytes(sha256.Size))
		copy(rec.Key[:], r.Bytes(sha256.Size))
		m := &mems[i]
		off, n := codec.Decode(r, i, rec, m) // the body is set once the section is found
		bodies[i] = span{off, n}
		if r.Err() != nil {
			break
		}
		if !IsMemoryPath(rec.Rel) || i > 0 && rec.Rel <= c.Recs[i-1].Rel {
			r.Fail("record %q out of order or not a memory path", rec.Rel)
			break
		}
		rec.Mem = m
	}
	switch flag := r.Bytes(1); {
	case r.Err() != nil:
	case flag[0] == 1:
		copy(c.Digest[:], r.Bytes(sha256.Size))
		c.Keys = r.Bytes(r.Count(sha256.Size) * sha256.Size)
		c.Swaps = r.Count(1)
		n := r.Count(1)
		if pad := r.Bytes(1); pad != nil && (pad[0] >= 8 || string(r.Bytes(int(pad[0]))) != string(make([]byte, pad[0]))) {
			r.Fail("bad padding before the index")
		}
		c.Snap = r.Bytes(n)
	case flag[0] != 0:
		r.Fail("bad index flag")
	}
	n := uint64(r.Count(1))
	start := r.Pos()
	r.Bytes(int(n))
	if r.Err() != nil {
		return nil, r.Err()
	}
	for i, sp := range bodies {
		if sp.off > n || sp.n > n-sp.off {
			return nil, fmt.Errorf("%w: body of %q outside the body section", ErrBadCache, c.Recs[i].Rel)
		}
		*codec.Body(c.Recs[i].Mem) = r.Slice(start+int(sp.off), start+int(sp.off+sp.n))
	}
	if r.Pos() != r.Len() {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrBadCache, r.Len()-r.Pos())
	}
	return c, nil
}

// IndexSection is the index a load built, as the cache keeps it.
type IndexSection struct {
	Digest   [sha256.Size]byte // of the build
	Keys     []byte            // the key of each memory inserted, in order
	Swaps    int               // how many DocIDs the build gave to other files
	Snapshot io.WriterTo       // the index
}

// IndexWrite is what WriteIndex writes.
type IndexWrite[M any] struct {
	Key     string // the program's (see ExecutableStamp)
	MaxSize int64  // the file size limit of the load
	Folders []FolderRec
	// Records yields the records, in path order; it is called twice.
	Records func(yield func(*Record[M]) bool)
	Index   *IndexSection // nil when the index is not kept
	Codec   Codec[M]
	// Drop, when not nil, is called every DropEvery bytes written: it
	// lets the memory of the cache the load read be reclaimed, as
	// writing reads every body and posting list, most of them pointing
	// into that cache's mapping.
	Drop func()
}

// WriteIndex writes the index cache of the vault folder dir. It writes a
// temporary file and renames it over the old cache, so a concurrent
// reader sees one or the other whole.
func WriteIndex[M any](dir string, iw IndexWrite[M]) error {
	d, err := OpenDir(dir, true)
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	defer d.Close()
	tmp, name, err := CreateTemp(d, IndexFileName+".tmp-")
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	// Streamed through a small buffer: a large vault's cache, which a
	// load's peak memory should not hold twice.
	var out io.Writer = tmp
	if iw.Drop != nil {
		out = &droppingWriter{w: tmp, drop: iw.Drop}
	}
	bw := bufio.NewWriterSize(out, 1<<16)
	err = encodeIndex(bw, iw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// By name inside the folder's handle: a link at the cache's
		// name is replaced, not followed.
		err = d.Rename(name, IndexFileName)
	}
	if err != nil {
		_ = d.Remove(name)
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}

// encodeIndex writes the cache iw describes to out.
func encodeIndex[M any](out io.Writer, iw IndexWrite[M]) error {
	w := NewWriter(out)
	w.RawStr(IndexMagic)
	w.Uv(IndexVersion)
	w.Str(iw.Key)
	w.Uv(uint64(iw.MaxSize))
	// The folders' listings come first: a load checks its folders
	// against them while it decodes the rest.
	w.Uv(uint64(len(iw.Folders)))
	for _, f := range iw.Folders {
		w.Str(f.Rel)
		w.Stat(f.Stat)
		w.Strs(f.Files)
		w.Strs(f.Subdirs)
		w.Flush(false)
	}
	n := 0
	for range iw.Records {
		n++
	}
	w.Uv(uint64(n))
	bodyBytes := 0
	for rec := range iw.Records {
		w.Str(rec.Rel)
		w.Stat(rec.Stat)
		w.Raw(rec.Sum[:])
		w.Raw(rec.Key[:])
		iw.Codec.Encode(w, rec.Mem, bodyBytes)
		bodyBytes += len(*iw.Codec.Body(rec.Mem))
		w.Flush(false)
	}
	if err := encodeIndexSection(w, iw.Index); err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	// The bodies come last, back to back: a load maps the file and
	// touches a body only when something reads it (see MapCacheFile).
	w.Uv(uint64(bodyBytes))
	for rec := range iw.Records {
		w.RawStr(*iw.Codec.Body(rec.Mem))
		w.Flush(false)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}

// encodeIndexSection writes the flag and, for an index kept, its digest,
// keys, swaps and snapshot, aligned.
func encodeIndexSection(w *Writer, ix *IndexSection) error {
	if ix == nil {
		w.Byte(0)
		return nil
	}
	w.Byte(1)
	w.Raw(ix.Digest[:])
	w.Uv(uint64(len(ix.Keys) / sha256.Size))
	w.Stream(ix.Keys)
	w.Uv(uint64(ix.Swaps))
	// The snapshot's length comes first: a pass that only counts finds
	// it.
	var count countingWriter
	if _, err := ix.Snapshot.WriteTo(&count); err != nil {
		return err
	}
	w.Uv(uint64(count))
	// The snapshot starts at a multiple of 8 bytes into the file, so that
	// a mapped cache's term tables are aligned to be used in place (see
	// index.LoadSnapshot).
	pad := (8 - (int(w.Offset())+1)%8) % 8
	w.Byte(byte(pad))
	w.Raw(make([]byte, pad))
	w.WriterTo(ix.Snapshot, int64(count))
	return nil
}

// droppingWriter calls drop after every DropEvery bytes written through
// it (see IndexWrite.Drop).
type droppingWriter struct {
	w    io.Writer
	n    int
	drop func()
}

func (d *droppingWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if d.n += n; d.n >= DropEvery {
		d.n = 0
		d.drop()
	}
	return n, err
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
