package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Loose objects are read here directly; packed objects and alternates go
// through go-git. go-git's loose-object path hashes every object twice with
// collision-detecting SHA-1 (once while reading, once for its cache), which
// cost more than inflating it when walking history.

// rawObject is an object body in memory. It implements
// plumbing.EncodedObject so go-git's decoders can read it without hashing.
type rawObject struct {
	t    plumbing.ObjectType
	h    plumbing.Hash
	data []byte
}

func (o *rawObject) Hash() plumbing.Hash           { return o.h }
func (o *rawObject) Type() plumbing.ObjectType     { return o.t }
func (o *rawObject) SetType(t plumbing.ObjectType) { o.t = t }
func (o *rawObject) Size() int64                   { return int64(len(o.data)) }
func (o *rawObject) SetSize(int64)                 {}
func (o *rawObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *rawObject) Writer() (io.WriteCloser, error) { return nil, errors.New("read-only object") }

func (s *Store) loosePath(h plumbing.Hash) string {
	hx := h.String()
	return filepath.Join(s.commonDir, "objects", hx[:2], hx[2:])
}

// readObject returns an object's body, checking its type: loose objects
// first, then packs (re-listed once in case git gc ran), then go-git's
// storage for anything else (alternates). The result may be shared with a
// cache and must not be modified.
func (s *Store) readObject(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	f, err := os.Open(s.loosePath(h))
	if err == nil {
		defer f.Close()
		data, err := s.readLoose(f, t)
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", t, h, err)
		}
		return data, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	o, ok, err := s.readPacked(h)
	if err == nil && !ok {
		if err = s.loadPacks(); err == nil {
			o, ok, err = s.readPacked(h)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	if !ok {
		obj, err := s.storer.EncodedObject(t, h)
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", t, h, err)
		}
		data, err := encodedBytes(obj)
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", t, h, err)
		}
		o = packedObject{obj.Type(), data}
	}
	if o.t != t {
		return nil, fmt.Errorf("read %s %s: is a %s: %w", t, h, o.t, plumbing.ErrObjectNotFound)
	}
	return o.data, nil
}

func (s *Store) readLoose(f *os.File, t plumbing.ObjectType) ([]byte, error) {
	zr, err := s.zlibReader(f)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	gotType, size, err := readLooseHeader(br)
	if err != nil {
		return nil, err
	}
	if gotType != t {
		return nil, fmt.Errorf("is a %s: %w", gotType, plumbing.ErrObjectNotFound)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, err
	}
	return data, nil
}

func encodedBytes(obj plumbing.EncodedObject) ([]byte, error) {
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := bytes.NewBuffer(make([]byte, 0, obj.Size()))
	_, err = io.Copy(buf, r)
	return buf.Bytes(), err
}

func (s *Store) zlibReader(r io.Reader) (io.Reader, error) {
	if s.zr == nil {
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, err
		}
		s.zr = zr
		return zr, nil
	}
	if err := s.zr.(zlib.Resetter).Reset(r, nil); err != nil {
		return nil, err
	}
	return s.zr, nil
}

// readLooseHeader reads "<type> <size>\x00".
func readLooseHeader(br *bufio.Reader) (plumbing.ObjectType, int64, error) {
	typ, err := br.ReadString(' ')
	if err != nil {
		return 0, 0, fmt.Errorf("corrupt loose object header: %w", err)
	}
	t, err := plumbing.ParseObjectType(typ[:len(typ)-1])
	if err != nil {
		return 0, 0, err
	}
	sz, err := br.ReadString(0)
	if err != nil {
		return 0, 0, fmt.Errorf("corrupt loose object header: %w", err)
	}
	size, err := strconv.ParseInt(sz[:len(sz)-1], 10, 64)
	if err != nil || size < 0 {
		return 0, 0, fmt.Errorf("corrupt loose object size %q", sz)
	}
	return t, size, nil
}

// getTree returns a decoded tree, from the cache when possible.
func (s *Store) getTree(h plumbing.Hash) (*tree, error) {
	if t, ok := s.trees.get(h); ok {
		return t, nil
	}
	if h == emptyTreeHash {
		return &tree{}, nil
	}
	data, err := s.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	t, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", h, err)
	}
	s.trees.put(h, t, len(t.entries)+1)
	return t, nil
}

// getCommit returns a decoded commit, from the cache when possible.
func (s *Store) getCommit(h plumbing.Hash) (*object.Commit, error) {
	if c, ok := s.commits.get(h); ok {
		return c, nil
	}
	data, err := s.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	c := &object.Commit{}
	if err := c.Decode(&rawObject{t: plumbing.CommitObject, h: h, data: data}); err != nil {
		return nil, fmt.Errorf("decode commit %s: %w", h, err)
	}
	s.commits.put(h, c, 1)
	return c, nil
}

// lookupKey caches the result of finding one name in one tree.
type lookupKey struct {
	tree plumbing.Hash
	name string
}

type lookupResult struct {
	e  treeEntry
	ok bool
}

// findEntry finds name in tree h. A tree already decoded is searched in
// memory; otherwise a loose tree is inflated only up to where name would
// be, without decoding it, and the answer is cached. History walks touch
// each version of a large folder once or twice, so decoding and caching
// whole trees there would cost far more.
func (s *Store) findEntry(h plumbing.Hash, name string) (treeEntry, bool, error) {
	if t, ok := s.trees.get(h); ok {
		e, found := t.find(name)
		return e, found, nil
	}
	key := lookupKey{h, name}
	if r, ok := s.lookups.get(key); ok {
		return r.e, r.ok, nil
	}
	var e treeEntry
	var found bool
	f, err := os.Open(s.loosePath(h))
	switch {
	case err == nil:
		defer f.Close()
		e, found, err = s.scanLooseTree(f, name)
	case errors.Is(err, fs.ErrNotExist):
		var data []byte
		if data, err = s.readObject(plumbing.TreeObject, h); err == nil {
			br := bufio.NewReaderSize(bytes.NewReader(data), 16<<10)
			e, found, err = scanTree(br, int64(len(data)), name)
		}
	}
	if err != nil {
		return treeEntry{}, false, fmt.Errorf("read tree %s: %w", h, err)
	}
	s.lookups.put(key, lookupResult{e, found}, 1)
	return e, found, nil
}

func (s *Store) scanLooseTree(f *os.File, name string) (treeEntry, bool, error) {
	zr, err := s.zlibReader(f)
	if err != nil {
		return treeEntry{}, false, err
	}
	br := bufio.NewReaderSize(zr, 16<<10)
	t, size, err := readLooseHeader(br)
	if err != nil {
		return treeEntry{}, false, err
	}
	if t != plumbing.TreeObject {
		return treeEntry{}, false, fmt.Errorf("is a %s", t)
	}
	return scanTree(br, size, name)
}

// scanTree reads tree entries from br until it finds name or passes the
// place where name would be.
func scanTree(br *bufio.Reader, size int64, name string) (treeEntry, bool, error) {
	var read int64
	for read < size {
		modeStr, err := br.ReadSlice(' ')
		if err != nil {
			return treeEntry{}, false, fmt.Errorf("corrupt tree: %w", err)
		}
		mode, err := strconv.ParseUint(string(modeStr[:len(modeStr)-1]), 8, 32)
		if err != nil {
			return treeEntry{}, false, fmt.Errorf("corrupt tree: mode %q", modeStr)
		}
		read += int64(len(modeStr))
		entryName, err := br.ReadSlice(0)
		if err != nil {
			return treeEntry{}, false, fmt.Errorf("corrupt tree: %w", err)
		}
		read += int64(len(entryName)) + 20
		entryName = entryName[:len(entryName)-1]
		isDir := uint32(mode) == modeDir
		c := treeCompareBytes(entryName, isDir, name)
		if c == 0 {
			e := treeEntry{name: name, mode: uint32(mode)}
			if _, err := io.ReadFull(br, e.hash[:]); err != nil {
				return treeEntry{}, false, fmt.Errorf("corrupt tree: %w", err)
			}
			return e, true, nil
		}
		if c > 0 {
			return treeEntry{}, false, nil // past every place name could be
		}
		if _, err := br.Discard(20); err != nil {
			return treeEntry{}, false, fmt.Errorf("corrupt tree: %w", err)
		}
	}
	return treeEntry{}, false, nil
}

// treeCompareBytes compares a tree entry with the name being looked up: 0
// if it is that name (file or directory), <0 if it sorts before both places
// the name could occupy, >0 if after both.
func treeCompareBytes(entry []byte, entryDir bool, name string) int {
	if string(entry) == name {
		return 0
	}
	// Compare with the name as a directory ("name/"), the later of its two
	// possible positions.
	n := min(len(entry), len(name))
	for i := 0; i < n; i++ {
		if entry[i] != name[i] {
			if entry[i] < name[i] {
				return -1
			}
			return 1
		}
	}
	var ce byte
	switch {
	case len(entry) > n:
		ce = entry[n]
	case entryDir:
		ce = '/'
	}
	var cn byte = '/'
	if len(name) > n {
		cn = name[n]
	}
	if ce > cn || (ce == cn && len(entry) > len(name)) {
		return 1
	}
	return -1
}
