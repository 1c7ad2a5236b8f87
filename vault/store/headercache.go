package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// The header cache is a headers-only vault's cache (see vault's
// Options.HeaderCache): per file, its stat data and its memory's header,
// in one file of a folder of the caller's choosing. Its format: the magic
// line, the program's stamp (see ExecutableStamp), the number of entries,
// the length of the first half of the entries, the entries (each as an
// entry codec writes it, in the encoding of Writer), then the CRC-32
// (IEEE) of everything before it, big endian. The two halves are decoded
// at once, each on its own goroutine.

// headerMagic starts a header cache file; the digit is the format
// version.
const headerMagic = "memvault-headers 2\n"

// errBadHeaders reports a header cache that cannot be used.
var errBadHeaders = fmt.Errorf("%w: damaged header cache", ErrBadCache)

// HeaderCodec writes and reads the entries of a header cache.
type HeaderCodec[E any] interface {
	// Prepare is called with the number of entries before any is
	// decoded: it may allocate what they share.
	Prepare(n int)
	// Encode writes e.
	Encode(w *Writer, e *E)
	// Decode reads what Encode wrote into e, the i-th entry.
	Decode(r *Reader, i int, e *E)
}

// EncodeHeaders serialises entries as a header cache file of the program
// stamp.
func EncodeHeaders[E any](stamp string, entries []E, codec HeaderCodec[E]) []byte {
	half := len(entries) / 2
	first, second := encodeHeaderEntries(entries[:half], codec), encodeHeaderEntries(entries[half:], codec)
	buf := make([]byte, 0, len(headerMagic)+len(stamp)+len(first)+len(second)+3*binary.MaxVarintLen64+4)
	buf = append(buf, headerMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(stamp)))
	buf = append(buf, stamp...)
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	buf = binary.AppendUvarint(buf, uint64(len(first)))
	buf = append(buf, first...)
	buf = append(buf, second...)
	return binary.BigEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
}

func encodeHeaderEntries[E any](entries []E, codec HeaderCodec[E]) []byte {
	var b bytes.Buffer
	w := NewWriter(&b)
	for i := range entries {
		codec.Encode(w, &entries[i])
		w.Flush(false)
	}
	w.Flush(true)
	return b.Bytes()
}

// DecodeHeaders reads what EncodeHeaders wrote, if stamp wrote it. The
// strings of the entries point into data, which must not change while
// they are used.
func DecodeHeaders[E any](data []byte, stamp string, codec HeaderCodec[E]) ([]E, error) {
	if len(data) < len(headerMagic)+4 || string(data[:len(headerMagic)]) != headerMagic {
		return nil, errBadHeaders
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadHeaders
	}
	r := NewReader(body, len(headerMagic))
	if r.Str() != stamp {
		return nil, errBadHeaders
	}
	n, split := r.Uv(), r.Uv()
	rest := len(body) - r.Pos()
	if r.Err() != nil || n > uint64(rest/16) || split > uint64(rest) { // an entry takes more than 16 bytes
		return nil, errBadHeaders
	}
	start := r.Pos()
	out := make([]E, n)
	codec.Prepare(int(n))
	half := int(n / 2)
	var second error
	done := make(chan struct{})
	go func() {
		defer close(done)
		second = decodeHeaderEntries(NewReader(body, start+int(split)), out, half, codec)
	}()
	first := decodeHeaderEntries(NewReader(body[:start+int(split)], start), out[:half], 0, codec)
	<-done
	if first != nil || second != nil {
		return nil, errBadHeaders
	}
	return out, nil
}

// decodeHeaderEntries decodes out[from:], the whole of what r has left.
func decodeHeaderEntries[E any](r *Reader, out []E, from int, codec HeaderCodec[E]) error {
	for i := from; i < len(out); i++ {
		codec.Decode(r, i, &out[i])
		if r.Err() != nil {
			return r.Err()
		}
	}
	if r.Pos() != r.Len() {
		return errBadHeaders
	}
	return nil
}

// ReadHeaders reads the header cache file at path, if stamp wrote it. A
// missing, unreadable or damaged file is no entries. The file is mapped
// (see MapCacheFile), and the strings of the entries point into the
// mapping; release unmaps it while nothing points into it yet.
func ReadHeaders[E any](path, stamp string, codec HeaderCodec[E]) (entries []E, release func()) {
	if path == "" || stamp == "" {
		return nil, nil
	}
	// The folder is memvault's own in the git directory; the file in it
	// is opened as the index cache is (OpenFile).
	d, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, nil
	}
	data, _, release, _, err := MapCacheFile(d, filepath.Base(path), false, nil)
	d.Close()
	if err != nil {
		return nil, nil
	}
	entries, err = DecodeHeaders(data, stamp, codec)
	if err != nil {
		release()
		return nil, nil
	}
	return entries, release
}

// WriteHeaders replaces the header cache file at path with data: written
// to a temporary file and renamed, so a reader sees the old or the new
// file whole. It is not synced: a cache lost to a power cut is rebuilt.
func WriteHeaders(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write header cache: %w", err)
	}
	return nil
}
