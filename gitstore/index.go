package gitstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file reads and writes .git/index (format versions 2, 3 and 4) without
// go-git's index codec, for two reasons. go-git's encoder writes no
// extensions at all and sorts entries with an unstable sort (stages of an
// unmerged path may swap), and decoding plus encoding a 20k-entry index
// through its reflection-based reader costs tens of milliseconds. Here every
// entry keeps its on-disk bytes; an update replaces only the entries of the
// committed paths and re-emits the rest verbatim.

const (
	indexHeaderLen   = 12
	indexEntryFixed  = 62 // stat data (40) + object id (20) + flags (2)
	indexFlagExt     = 0x4000
	indexNameMask    = 0xfff
	indexHashLen     = 20
	indexStageShift  = 12
	indexMaxVersion  = 4
	indexMinVersion  = 2
	indexExtTree     = "TREE"
	indexExtLink     = "link"
	indexExtSparse   = "sdir"
	indexExtResolve  = "REUC"
	indexHashOffset  = 40
	indexFlagsOffset = 60
)

var errIndexCorrupt = errors.New("corrupt index")

// indexFile is a decoded index whose entries still point at their on-disk
// bytes.
type indexFile struct {
	version uint32
	src     []byte       // the file the entries were decoded from
	entries []indexEntry // sorted by name, then stage
	tree    *cacheTree   // the TREE extension, nil if absent
	keep    []indexExt   // other extensions that stay valid when entries change
	sum     [indexHashLen]byte
	// mtimeSec is the second the file it was read from was last written,
	// git's reference for racily clean entries (racy.go); 0 for none.
	mtimeSec uint32
	// racy names the entries that may be racily clean, a superset kept
	// from commit to commit so that one need not read every entry
	// (racyKnown: listed since the index was decoded).
	racy      []string
	racyKnown bool
}

// indexEntry is one index entry: its path and its fixed-size header (stat
// data, object id, flags and, in version 3+, extended flags). Entries
// decoded from indexFile.src remember where their bytes are, so that
// encoding copies runs of unchanged entries in one go.
type indexEntry struct {
	name      string
	head      []byte
	off, size int32 // position in src; off is -1 for new entries
}

type indexExt struct {
	sig  string
	data []byte
}

func (e indexEntry) stage() int {
	return int(binary.BigEndian.Uint16(e.head[indexFlagsOffset:])>>indexStageShift) & 3
}

func (e indexEntry) hash() (h [20]byte) {
	copy(h[:], e.head[indexHashOffset:indexHashOffset+indexHashLen])
	return h
}

func (e indexEntry) mode() uint32 { return binary.BigEndian.Uint32(e.head[24:]) }

// decodeIndex parses an index file. It refuses split and sparse indexes and
// any other mandatory extension it does not know, because rewriting them
// without understanding them would corrupt the repository.
func decodeIndex(data []byte) (*indexFile, error) {
	if len(data) < indexHeaderLen+indexHashLen {
		return nil, fmt.Errorf("%w: %d bytes", errIndexCorrupt, len(data))
	}
	if string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: bad signature", errIndexCorrupt)
	}
	if len(data) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d bytes", ErrUnsupported, len(data))
	}
	ix := &indexFile{version: binary.BigEndian.Uint32(data[4:]), src: data}
	if ix.version < indexMinVersion || ix.version > indexMaxVersion {
		return nil, fmt.Errorf("%w: index version %d", ErrUnsupported, ix.version)
	}
	body := data[:len(data)-indexHashLen]
	copy(ix.sum[:], data[len(data)-indexHashLen:])
	// index.skipHash writes a zero trailer; git skips verification then.
	if ix.sum != ([indexHashLen]byte{}) && sha1.Sum(body) != ix.sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errIndexCorrupt)
	}
	count := binary.BigEndian.Uint32(data[8:])
	if uint64(count)*indexEntryFixed > uint64(len(body)) {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errIndexCorrupt, count, len(body))
	}
	// Room for the few entries a commit adds: set inserts in place instead
	// of copying every entry to a new array, its pages all fresh in a
	// process that runs with the collector off (docs/git.md, "memvault
	// add, third round: process start (2026-12-02, 4871474)").
	ix.entries = make([]indexEntry, 0, int(count)+indexSpare)
	off := indexHeaderLen
	prev := ""
	for i := uint32(0); i < count; i++ {
		e, n, err := decodeIndexEntry(body[off:], ix.version, prev)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if len(ix.entries) > 0 {
			last := ix.entries[len(ix.entries)-1]
			if last.name > e.name || (last.name == e.name && last.stage() >= e.stage()) {
				return nil, fmt.Errorf("%w: entries out of order at %q", errIndexCorrupt, e.name)
			}
		}
		e.off, e.size = int32(off), int32(n)
		ix.entries = append(ix.entries, e)
		prev = e.name
		off += n
	}
	for off < len(body) {
		if len(body)-off < 8 {
			return nil, fmt.Errorf("%w: truncated extension header", errIndexCorrupt)
		}
		sig := string(body[off : off+4])
		size := binary.BigEndian.Uint32(body[off+4:])
		off += 8
		if uint64(size) > uint64(len(body)-off) {
			return nil, fmt.Errorf("%w: extension %q overruns the file", errIndexCorrupt, sig)
		}
		ext := body[off : off+int(size)]
		off += int(size)
		switch {
		case sig == indexExtTree:
			t, rest, err := decodeCacheTree(ext)
			if err != nil {
				return nil, err
			}
			if len(rest) != 0 {
				return nil, fmt.Errorf("%w: trailing bytes in cache tree", errIndexCorrupt)
			}
			ix.tree = t
		case sig == indexExtResolve:
			ix.keep = append(ix.keep, indexExt{sig, bytes.Clone(ext)})
		case sig == indexExtLink || sig == indexExtSparse:
			return nil, fmt.Errorf("%w: index extension %q (split or sparse index)", ErrUnsupported, sig)
		case sig[0] < 'A' || sig[0] > 'Z':
			return nil, fmt.Errorf("%w: mandatory index extension %q", ErrUnsupported, sig)
		default:
			// Optional caches (UNTR, FSMN, EOIE, IEOT, ...) may refer to entry
			// positions or to the old entry set; dropping them is always valid.
		}
	}
	return ix, nil
}

func decodeIndexEntry(b []byte, version uint32, prev string) (indexEntry, int, error) {
	if len(b) < indexEntryFixed {
		return indexEntry{}, 0, fmt.Errorf("%w: truncated entry", errIndexCorrupt)
	}
	flags := binary.BigEndian.Uint16(b[indexFlagsOffset:])
	headLen := indexEntryFixed
	if flags&indexFlagExt != 0 {
		if version < 3 {
			return indexEntry{}, 0, fmt.Errorf("%w: extended flags in version %d", errIndexCorrupt, version)
		}
		headLen += 2
		if len(b) < headLen {
			return indexEntry{}, 0, fmt.Errorf("%w: truncated entry", errIndexCorrupt)
		}
	}
	nameLen := int(flags & indexNameMask)
	rest := b[headLen:]
	var name string
	var n int
	if version == 4 {
		strip, vn, err := decodeOffsetVarint(rest)
		if err != nil {
			return indexEntry{}, 0, err
		}
		if strip > uint64(len(prev)) {
			return indexEntry{}, 0, fmt.Errorf("%w: prefix strip %d > %d", errIndexCorrupt, strip, len(prev))
		}
		rest = rest[vn:]
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			return indexEntry{}, 0, fmt.Errorf("%w: unterminated name", errIndexCorrupt)
		}
		name = prev[:len(prev)-int(strip)] + string(rest[:nul])
		n = headLen + vn + nul + 1
	} else {
		if nameLen == indexNameMask {
			nameLen = bytes.IndexByte(rest, 0)
			if nameLen < 0 {
				return indexEntry{}, 0, fmt.Errorf("%w: unterminated name", errIndexCorrupt)
			}
		}
		if nameLen > len(rest) {
			return indexEntry{}, 0, fmt.Errorf("%w: truncated name", errIndexCorrupt)
		}
		name = string(rest[:nameLen])
		n = (headLen + nameLen + 8) &^ 7
		if n > len(b) {
			return indexEntry{}, 0, fmt.Errorf("%w: truncated padding", errIndexCorrupt)
		}
	}
	if l := int(flags & indexNameMask); l != indexNameMask && l != len(name) {
		return indexEntry{}, 0, fmt.Errorf("%w: name length %d for %q", errIndexCorrupt, l, name)
	}
	if name == "" {
		return indexEntry{}, 0, fmt.Errorf("%w: empty path", errIndexCorrupt)
	}
	return indexEntry{name: name, head: b[:headLen:headLen]}, n, nil
}

// join lays spans, a layout of ix (see layout), out in one buffer,
// appended to buf[:0] with room left for the checksum.
func (ix *indexFile) join(buf []byte, spans []indexSpan, spill []byte) []byte {
	n := 0
	for _, sp := range spans {
		n += sp.hi - sp.lo
	}
	buf = slices.Grow(buf[:0], n+indexHashLen)
	for _, sp := range spans {
		buf = append(buf, sp.bytes(ix.src, spill)...)
	}
	return buf
}

// indexSpan is a piece of an index encoding: a run of unchanged entries
// still in the bytes they were read from (inSrc), or bytes of the spill
// buffer (the header, new entries, extensions).
type indexSpan struct {
	inSrc  bool
	lo, hi int
}

func (sp indexSpan) bytes(src, spill []byte) []byte {
	if sp.inSrc {
		return src[sp.lo:sp.hi]
	}
	return spill[sp.lo:sp.hi]
}

// layout lays out the encoding of the index without its checksum: runs
// of entries unchanged since they were read stay in ix.src, everything
// else is appended to spill. It also counts the entries encoded one by
// one (loose), which a full encoding and adopt turn back into runs.
func (ix *indexFile) layout(spill []byte) (_ []byte, spans []indexSpan, loose int) {
	spill = append(spill[:0], "DIRC"...)
	spill = binary.BigEndian.AppendUint32(spill, ix.version)
	spill = binary.BigEndian.AppendUint32(spill, uint32(len(ix.entries)))
	mark := 0 // spill bytes not yet in a span
	cut := func() {
		if len(spill) > mark {
			spans = append(spans, indexSpan{lo: mark, hi: len(spill)})
			mark = len(spill)
		}
	}
	prev := ""
	var zeros [8]byte
	for _, e := range ix.entries {
		if ix.version != 4 && e.off >= 0 {
			if n := len(spans); n > 0 && spans[n-1].inSrc && spans[n-1].hi == int(e.off) && len(spill) == mark {
				spans[n-1].hi += int(e.size)
				continue
			}
			cut()
			spans = append(spans, indexSpan{inSrc: true, lo: int(e.off), hi: int(e.off) + int(e.size)})
			continue
		}
		loose++
		spill = append(spill, e.head...)
		if ix.version == 4 {
			common := commonPrefix(prev, e.name)
			spill = appendOffsetVarint(spill, uint64(len(prev)-common))
			spill = append(spill, e.name[common:]...)
			spill = append(spill, 0)
			prev = e.name
			continue
		}
		spill = append(spill, e.name...)
		n := len(e.head) + len(e.name)
		spill = append(spill, zeros[:((n+8)&^7)-n]...)
	}
	if ix.tree != nil {
		t := ix.tree.encode(nil)
		spill = append(spill, indexExtTree...)
		spill = binary.BigEndian.AppendUint32(spill, uint32(len(t)))
		spill = append(spill, t...)
	}
	for _, x := range ix.keep {
		spill = append(spill, x.sig...)
		spill = binary.BigEndian.AppendUint32(spill, uint32(len(x.data)))
		spill = append(spill, x.data...)
	}
	cut()
	return spill, spans, loose
}

// adopt makes buf, an encoding of ix, the source of its entries, so that
// the next encode copies unchanged entries in runs and the previous source
// buffer can be reused.
func (ix *indexFile) adopt(buf []byte) {
	ix.src = buf
	if ix.version == 4 {
		for i := range ix.entries {
			ix.entries[i].off = -1
		}
		return
	}
	off := indexHeaderLen
	for i := range ix.entries {
		e := &ix.entries[i]
		hl := len(e.head)
		n := (hl + len(e.name) + 8) &^ 7
		e.head = buf[off : off+hl : off+hl]
		e.off, e.size = int32(off), int32(n)
		off += n
	}
}

// find returns the position of the first entry named name (any stage) or,
// if there is none, where it would be inserted.
func (ix *indexFile) find(name string) (int, bool) {
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].name >= name })
	return i, i < len(ix.entries) && ix.entries[i].name == name
}

// lookup returns the stage-0 entry for name.
func (ix *indexFile) lookup(name string) (indexEntry, bool) {
	i, ok := ix.find(name)
	if !ok || ix.entries[i].stage() != 0 {
		return indexEntry{}, false
	}
	return ix.entries[i], true
}

// removeName drops every stage of name.
func (ix *indexFile) removeName(name string) {
	i, ok := ix.find(name)
	if !ok {
		return
	}
	j := i
	for j < len(ix.entries) && ix.entries[j].name == name {
		j++
	}
	ix.entries = append(ix.entries[:i], ix.entries[j:]...)
}

// indexSpare is the capacity decode leaves beyond an index's entries.
const indexSpare = 16

// set replaces every stage of e.name with e, removing entries that would
// conflict with it as a file (a file at one of its parent directories, or
// files under a directory of the same name), as git's add_index_entry does.
func (ix *indexFile) set(e indexEntry) {
	ix.removeConflicts(e.name)
	ix.removeName(e.name)
	i, _ := ix.find(e.name)
	ix.entries = append(ix.entries, indexEntry{})
	copy(ix.entries[i+1:], ix.entries[i:])
	ix.entries[i] = e
	ix.invalidate(e.name)
}

// remove drops every stage of name from the index.
func (ix *indexFile) remove(name string) {
	ix.removeName(name)
	ix.invalidate(name)
}

func (ix *indexFile) removeConflicts(name string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			ix.removeName(name[:i])
		}
	}
	dir := name + "/"
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].name >= dir })
	j := i
	for j < len(ix.entries) && strings.HasPrefix(ix.entries[j].name, dir) {
		j++
	}
	ix.entries = append(ix.entries[:i], ix.entries[j:]...)
}

func (ix *indexFile) invalidate(name string) {
	if ix.tree != nil {
		ix.tree.invalidate(name)
	}
}

// cacheTree is the TREE extension: for each directory, how many index
// entries it covers and the tree object they hash to. entryCount -1 marks a
// directory git must recompute.
type cacheTree struct {
	name       string
	entryCount int
	hash       [20]byte
	children   []*cacheTree
}

func decodeCacheTree(b []byte) (*cacheTree, []byte, error) {
	bad := func(what string) (*cacheTree, []byte, error) {
		return nil, nil, fmt.Errorf("%w: cache tree: %s", errIndexCorrupt, what)
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return bad("unterminated path")
	}
	t := &cacheTree{name: string(b[:nul])}
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return bad("missing entry count")
	}
	ec, err := strconv.Atoi(string(b[:sp]))
	if err != nil || ec < -1 {
		return bad("bad entry count")
	}
	b = b[sp+1:]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return bad("missing subtree count")
	}
	sc, err := strconv.Atoi(string(b[:nl]))
	if err != nil || sc < 0 || sc > len(b) {
		return bad("bad subtree count")
	}
	b = b[nl+1:]
	t.entryCount = ec
	if ec >= 0 {
		if len(b) < 20 {
			return bad("truncated hash")
		}
		copy(t.hash[:], b[:20])
		b = b[20:]
	}
	for i := 0; i < sc; i++ {
		var c *cacheTree
		c, b, err = decodeCacheTree(b)
		if err != nil {
			return nil, nil, err
		}
		t.children = append(t.children, c)
	}
	return t, b, nil
}

func (t *cacheTree) encode(buf []byte) []byte {
	buf = append(buf, t.name...)
	buf = append(buf, 0)
	buf = strconv.AppendInt(buf, int64(t.entryCount), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(len(t.children)), 10)
	buf = append(buf, '\n')
	if t.entryCount >= 0 {
		buf = append(buf, t.hash[:]...)
	}
	for _, c := range t.children {
		buf = c.encode(buf)
	}
	return buf
}

// invalidate marks every directory on path as needing recomputation and
// drops a cached subtree that the path itself names, mirroring git's
// cache_tree_invalidate_path.
func (t *cacheTree) invalidate(path string) {
	node := t
	for {
		node.entryCount = -1
		comp, rest, more := strings.Cut(path, "/")
		if !more {
			for i, c := range node.children {
				if c.name == comp {
					node.children = append(node.children[:i], node.children[i+1:]...)
					break
				}
			}
			return
		}
		var next *cacheTree
		for _, c := range node.children {
			if c.name == comp {
				next = c
				break
			}
		}
		if next == nil {
			return
		}
		node, path = next, rest
	}
}

// decodeOffsetVarint reads git's "offset" varint (varint.c), used for the
// prefix-strip length of index version 4.
func decodeOffsetVarint(b []byte) (uint64, int, error) {
	if len(b) == 0 {
		return 0, 0, fmt.Errorf("%w: truncated varint", errIndexCorrupt)
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0, fmt.Errorf("%w: bad varint", errIndexCorrupt)
		}
		c = b[i]
		i++
		val = ((val + 1) << 7) | uint64(c&127)
	}
	return val, i, nil
}

func appendOffsetVarint(buf []byte, v uint64) []byte {
	var tmp [16]byte
	pos := len(tmp) - 1
	tmp[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		tmp[pos] = 128 | byte(v&127)
	}
	return append(buf, tmp[pos:]...)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
