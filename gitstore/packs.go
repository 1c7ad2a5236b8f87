package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Packed objects are read with go-git's pack index, scanner and delta
// patcher, but resolved and cached here by pack offset. go-git's object
// storage keys its delta-base cache by object id and so hashes every
// object it inflates, twice, with collision-detecting SHA-1; on a history
// walk over a large folder that was two thirds of the time.

// packBaseCacheBytes bounds the cache of inflated packed objects, which
// serves delta bases: consecutive versions of a folder tree are usually
// deltas of one another.
const packBaseCacheBytes = 32 << 20

// maxDeltaDepth guards against delta cycles in a corrupt pack; git's own
// default maximum depth is 50.
const maxDeltaDepth = 10000

type pack struct {
	name string
	idx  *idxfile.MemoryIndex
	f    *os.File
	sc   *packfile.Scanner
}

type packKey struct {
	p   *pack
	off int64
}

type packedObject struct {
	t    plumbing.ObjectType
	data []byte
}

// loadPacks opens every pack with an index in objects/pack.
func (s *Store) loadPacks() error {
	s.closePacks()
	s.packsLoaded = true
	dir := filepath.Join(s.commonDir, "objects", "pack")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list packs: %w", err)
	}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		p, err := openPack(filepath.Join(dir, name))
		if err != nil {
			// A pack being written or deleted by git gc: skip it; a missing
			// object falls back to go-git's storage.
			continue
		}
		s.packs = append(s.packs, p)
	}
	return nil
}

func openPack(base string) (*pack, error) {
	b, err := os.ReadFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(b)).Decode(idx); err != nil {
		return nil, fmt.Errorf("%s.idx: %w", base, err)
	}
	f, err := os.Open(base + ".pack")
	if err != nil {
		return nil, err
	}
	return &pack{name: base, idx: idx, f: f, sc: packfile.NewScanner(f)}, nil
}

func (s *Store) closePacks() {
	for _, p := range s.packs {
		p.f.Close()
	}
	s.packs = nil
	s.packed = newLRU[packKey, packedObject](packBaseCacheBytes)
}

// readPacked finds an object in the packs. ok is false if no pack has it.
func (s *Store) readPacked(h plumbing.Hash) (packedObject, bool, error) {
	if !s.packsLoaded {
		if err := s.loadPacks(); err != nil {
			return packedObject{}, false, err
		}
	}
	for _, p := range s.packs {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			continue
		}
		o, err := s.readPackAt(p, off, 0)
		if err != nil {
			return packedObject{}, false, fmt.Errorf("pack %s: %w", filepath.Base(p.name), err)
		}
		return o, true, nil
	}
	return packedObject{}, false, nil
}

// readPackAt inflates the object at off, resolving deltas. The result is
// shared through the cache and must not be modified.
func (s *Store) readPackAt(p *pack, off int64, depth int) (packedObject, error) {
	key := packKey{p, off}
	if o, ok := s.packed.get(key); ok {
		return o, nil
	}
	if depth > maxDeltaDepth {
		return packedObject{}, errors.New("delta chain too deep")
	}
	hdr, err := p.sc.SeekObjectHeader(off)
	if err != nil {
		return packedObject{}, err
	}
	var buf bytes.Buffer
	buf.Grow(int(min(hdr.Length, 1<<20)))
	if _, _, err := p.sc.NextObject(&buf); err != nil {
		return packedObject{}, err
	}
	var o packedObject
	switch hdr.Type {
	case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
		var base packedObject
		if hdr.Type == plumbing.OFSDeltaObject {
			base, err = s.readPackAt(p, hdr.OffsetReference, depth+1)
		} else {
			base, err = s.readAnyObject(hdr.Reference, depth+1)
		}
		if err != nil {
			return packedObject{}, fmt.Errorf("delta base: %w", err)
		}
		data, err := packfile.PatchDelta(base.data, buf.Bytes())
		if err != nil {
			return packedObject{}, err
		}
		o = packedObject{base.t, data}
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		o = packedObject{hdr.Type, buf.Bytes()}
	default:
		return packedObject{}, fmt.Errorf("object at %d has type %v", off, hdr.Type)
	}
	s.packed.put(key, o, len(o.data)+64)
	return o, nil
}

// readAnyObject returns an object of any type, for REF_DELTA bases.
func (s *Store) readAnyObject(h plumbing.Hash, depth int) (packedObject, error) {
	for _, p := range s.packs {
		if off, err := p.idx.FindOffset(h); err == nil {
			return s.readPackAt(p, off, depth)
		}
	}
	obj, err := s.storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return packedObject{}, err
	}
	data, err := encodedBytes(obj)
	return packedObject{obj.Type(), data}, err
}
