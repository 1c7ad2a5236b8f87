package index

import (
	"encoding/binary"
	"hash/maphash"
)

// termTable maps index terms to dense ids and their posting lists. It is
// an open-addressing hash table of 16-byte slots that hold the first eight
// bytes of the term, so finding a short term (a CJK bigram, most English
// words) touches one slot and never the text arena; longer terms are
// verified against the arena. Nothing in the slots is a Go pointer, so a
// vocabulary of millions of terms costs the garbage collector nothing.
type termTable struct {
	seed  maphash.Seed
	slots []termSlot
	arena []byte        // term texts back to back
	offs  []uint32      // id -> start of its text in arena
	posts []postingList // id -> postings
	slab  []byte        // carved into the first buffer of each new posting list
}

type termSlot struct {
	head uint64 // first eight bytes of the term, zero padded
	meta uint32 // 24-bit hash fingerprint << 8 | len; 0 marks an empty slot
	id   uint32
}

func newTermTable() termTable {
	return termTable{seed: maphash.MakeSeed(), slots: make([]termSlot, 1024)}
}

func (t *termTable) hash(b []byte) uint64 { return maphash.Bytes(t.seed, b) }

func headOf(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var h uint64
	for i := len(b) - 1; i >= 0; i-- {
		h = h<<8 | uint64(b[i])
	}
	return h
}

// metaOf packs the fingerprint and length; terms are at most
// maxCompoundBytes long, so the length fits in a byte and meta is never 0.
func metaOf(h uint64, n int) uint32 { return uint32(h>>40)<<8 | uint32(n) }

// find returns the slot of b (hash h) and true, or the empty slot where it
// would go and false.
func (t *termTable) find(h uint64, b []byte) (int, bool) {
	head, meta := headOf(b), metaOf(h, len(b))
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.meta == 0 {
			return int(i), false
		}
		if s.meta == meta && s.head == head &&
			(len(b) <= 8 || string(t.arena[t.offs[s.id]:t.offs[s.id]+uint32(len(b))]) == string(b)) {
			return int(i), true
		}
	}
}

// get returns the posting list of term s, or nil. It does not modify the
// table, so concurrent readers may call it.
func (t *termTable) get(s string) *postingList {
	if len(s) == 0 || len(s) > maxCompoundBytes {
		return nil
	}
	var buf [maxCompoundBytes]byte
	b := append(buf[:0], s...)
	i, ok := t.find(t.hash(b), b)
	if !ok {
		return nil
	}
	return &t.posts[t.slots[i].id]
}

// intern returns the id of b (hash h), adding the term if needed.
func (t *termTable) intern(h uint64, b []byte) uint32 {
	if (len(t.posts)+1)*5 > len(t.slots)*4 {
		t.grow()
	}
	i, ok := t.find(h, b)
	s := &t.slots[i]
	if ok {
		return s.id
	}
	id := uint32(len(t.posts))
	*s = termSlot{head: headOf(b), meta: metaOf(h, len(b)), id: id}
	t.offs = append(t.offs, uint32(len(t.arena)))
	t.arena = append(t.arena, b...)
	// Most terms occur in one or two documents: give them a small buffer
	// from a shared slab instead of an allocation each.
	const first, slabSize = 8, 64 << 10
	if len(t.slab) < first {
		t.slab = make([]byte, slabSize)
	}
	t.posts = append(t.posts, postingList{data: t.slab[:0:first]})
	t.slab = t.slab[first:]
	return id
}

// grow doubles the slot array, keeping the load factor at most 0.8.
func (t *termTable) grow() {
	old := t.slots
	t.slots = make([]termSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for k := range old {
		s := &old[k]
		if s.meta == 0 {
			continue
		}
		off := t.offs[s.id]
		i := t.hash(t.arena[off:off+s.meta&0xff]) & mask
		for t.slots[i].meta != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = *s
	}
}

// docTerms aggregates the terms of one document before they reach the
// global table, in a small table that stays in cache.
type docTerms struct {
	buf   []byte
	ents  []docEnt
	table []int32 // index into ents + 1
}

type docEnt struct {
	start, end uint32 // text in buf
	hash       uint64
	tf         [numFields]uint8
}

func (d *docTerms) reset() {
	d.buf = d.buf[:0]
	d.ents = d.ents[:0]
	if len(d.table) == 0 {
		d.table = make([]int32, 512)
	} else {
		clear(d.table)
	}
}

// add counts one occurrence of term b (hash h) in field f.
func (d *docTerms) add(h uint64, b []byte, f int) {
	mask := uint64(len(d.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := d.table[i]
		if e == 0 {
			d.buf = append(d.buf, b...)
			d.ents = append(d.ents, docEnt{start: uint32(len(d.buf) - len(b)), end: uint32(len(d.buf)), hash: h})
			d.ents[len(d.ents)-1].tf[f] = 1
			d.table[i] = int32(len(d.ents))
			if len(d.ents)*2 > len(d.table) {
				d.grow()
			}
			return
		}
		ent := &d.ents[e-1]
		if ent.hash == h && string(d.buf[ent.start:ent.end]) == string(b) {
			if ent.tf[f] < maxTF {
				ent.tf[f]++
			}
			return
		}
	}
}

func (d *docTerms) grow() {
	d.table = make([]int32, 2*len(d.table))
	mask := uint64(len(d.table) - 1)
	for k := range d.ents {
		i := d.ents[k].hash & mask
		for d.table[i] != 0 {
			i = (i + 1) & mask
		}
		d.table[i] = int32(k + 1)
	}
}
