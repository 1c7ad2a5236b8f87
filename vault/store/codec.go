package store

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"time"
	"unsafe"
)

// The index cache's encoding, little endian: uvarints unless said, signed
// numbers as zig-zag varints, a string as its length and bytes, a list of
// strings as its count and strings, a time as a flag byte (0 zero, 1 set)
// then Unix seconds and nanoseconds. A file ends with a trailer: its size
// as 8 bytes and the CRC-32 (IEEE) of everything before it as 4 bytes
// (see Writer.Close).

// Trailer is the size of the trailer that ends an index cache file.
const Trailer = 12

// Writer encodes a cache file to an io.Writer through a small buffer,
// keeping its size and checksum for the trailer. The first write error
// is kept and returned by Close; later writes do nothing.
type Writer struct {
	out     io.Writer
	crc     hash.Hash32
	written int64 // bytes passed to out, the trailer aside
	b       []byte
	err     error
}

// NewWriter returns a Writer onto out.
func NewWriter(out io.Writer) *Writer {
	return &Writer{out: out, crc: crc32.NewIEEE(), b: make([]byte, 0, 64<<10)}
}

// Flush hands the buffer on when it holds 32 KiB or more, or always with
// force.
func (w *Writer) Flush(force bool) {
	if (force || len(w.b) >= 32<<10) && w.err == nil {
		w.write(w.b)
		w.b = w.b[:0]
	}
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.out.Write(p)
	w.crc.Write(p[:n])
	w.written += int64(n)
	w.err = err
}

// Offset is where the next byte lands in the file.
func (w *Writer) Offset() int64 { return w.written + int64(len(w.b)) }

// Raw appends p as it is.
func (w *Writer) Raw(p []byte) { w.b = append(w.b, p...) }

// RawStr appends s as it is.
func (w *Writer) RawStr(s string) { w.b = append(w.b, s...) }

// Stream writes p, flushing the buffer first: for a large block (posting
// keys) that need not be copied into the buffer.
func (w *Writer) Stream(p []byte) {
	w.Flush(true)
	w.write(p)
}

// WriterTo writes what wt writes, flushing the buffer first, and fails
// unless that is n bytes.
func (w *Writer) WriterTo(wt io.WriterTo, n int64) {
	w.Flush(true)
	if w.err != nil {
		return
	}
	got, err := wt.WriteTo(writerFunc(w.write))
	if err == nil && got != n {
		err = fmt.Errorf("%d bytes to write, then %d", n, got)
	}
	if w.err == nil {
		w.err = err
	}
}

// writerFunc is an io.Writer that a Writer's write stands behind.
type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// Uv appends an unsigned number.
func (w *Writer) Uv(x uint64) { w.b = binary.AppendUvarint(w.b, x) }

// Sv appends a signed number.
func (w *Writer) Sv(x int64) { w.b = binary.AppendVarint(w.b, x) }

// Byte appends one byte.
func (w *Writer) Byte(c byte) { w.b = append(w.b, c) }

// Str appends a string.
func (w *Writer) Str(s string) {
	w.Uv(uint64(len(s)))
	w.b = append(w.b, s...)
}

// Strs appends a list of strings.
func (w *Writer) Strs(l []string) {
	w.Uv(uint64(len(l)))
	for _, s := range l {
		w.Str(s)
	}
}

// Stat appends a StatKey.
func (w *Writer) Stat(k StatKey) { w.Sv(k.Size); w.Sv(k.Mtime); w.Sv(k.Ctime); w.Uv(k.Ino) }

// Tm appends a time.
func (w *Writer) Tm(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	w.b = append(w.b, 1)
	w.Sv(t.Unix())
	w.Uv(uint64(t.Nanosecond()))
}

// Close writes the trailer and returns the first error met.
func (w *Writer) Close() error {
	w.b = binary.LittleEndian.AppendUint64(w.b, uint64(w.Offset())+Trailer)
	w.Flush(true)
	if w.err == nil {
		_, w.err = w.out.Write(binary.LittleEndian.AppendUint32(nil, w.crc.Sum32()))
	}
	return w.err
}

// Reader decodes a cache held in memory. Strings are slices of one string
// over the whole buffer: the memories restored from a cache share its
// memory instead of each holding copies. The first problem is kept (see
// Err), wrapping ErrBadCache; later reads return zero values.
type Reader struct {
	b     []byte
	s     string // the same bytes as b
	i     int
	err   error
	arena []string // what Strs hands out next
}

// NewReader returns a Reader of b, at the offset at. b must not change
// while what the reader returned is in use.
func NewReader(b []byte, at int) *Reader {
	return &Reader{b: b, s: unsafe.String(unsafe.SliceData(b), len(b)), i: at}
}

// Err is the first problem met, or nil.
func (r *Reader) Err() error { return r.err }

// Pos is the offset of the next byte to read.
func (r *Reader) Pos() int { return r.i }

// Len is the length of what is read.
func (r *Reader) Len() int { return len(r.b) }

// Slice returns the bytes from to to as a string sharing the buffer.
func (r *Reader) Slice(from, to int) string { return r.s[from:to] }

// Fail records a problem, unless one was met before.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrBadCache}, args...)...)
	}
}

// Uv reads an unsigned number.
func (r *Reader) Uv() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.Fail("truncated at %d", r.i)
		return 0
	}
	r.i += n
	return x
}

// Stat reads a StatKey as Writer.Stat wrote it.
func (r *Reader) Stat() StatKey {
	return StatKey{Size: r.Sv(), Mtime: r.Sv(), Ctime: r.Sv(), Ino: r.Uv()}
}

// Sv reads a signed number.
func (r *Reader) Sv() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.Fail("truncated at %d", r.i)
		return 0
	}
	r.i += n
	return x
}

// Count reads a count of items that take at least min bytes each.
func (r *Reader) Count(min int) int {
	n := r.Uv()
	if n > uint64(len(r.b)-r.i)/uint64(min) {
		r.Fail("count %d at %d exceeds the data", n, r.i)
		return 0
	}
	return int(n)
}

// Bytes reads n bytes, sharing the buffer.
func (r *Reader) Bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.i {
		r.Fail("truncated at %d", r.i)
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

// Str reads a string, sharing the buffer.
func (r *Reader) Str() string {
	n := r.Count(1)
	if r.err != nil || n == 0 {
		return ""
	}
	r.i += n
	return r.s[r.i-n : r.i]
}

// Strs reads a list of strings.
func (r *Reader) Strs() []string {
	n := r.Count(1)
	if n == 0 {
		return nil
	}
	// Carved from a shared block, without spare capacity: an append to
	// one copies it rather than overwrite the next.
	if n > len(r.arena) {
		r.arena = make([]string, max(n, 4096))
		for k := range r.arena { // see Prefault; a length is a number
			(*struct {
				p unsafe.Pointer
				n int
			})(unsafe.Pointer(&r.arena[k])).n = 0
		}
	}
	out := r.arena[:n:n]
	r.arena = r.arena[n:]
	for i := range out {
		out[i] = r.Str()
	}
	return out
}

// Tm reads a time, in UTC.
func (r *Reader) Tm() time.Time {
	switch f := r.Bytes(1); {
	case f == nil:
		return time.Time{}
	case f[0] == 0:
		return time.Time{}
	case f[0] == 1:
		sec := r.Sv()
		ns := r.Uv()
		if ns >= 1e9 {
			r.Fail("bad nanoseconds at %d", r.i)
			return time.Time{}
		}
		return time.Unix(sec, int64(ns)).UTC()
	default:
		r.Fail("bad time flag at %d", r.i)
		return time.Time{}
	}
}
