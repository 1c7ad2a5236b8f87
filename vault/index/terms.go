package index

import (
	"crypto/rand"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
)

// termTable maps index terms to dense ids and their posting lists. It is
// an open-addressing hash table of 16-byte slots that hold the first eight
// bytes of the term and the low half of its hash, so finding a short term
// (a CJK bigram, most English words) touches one slot and never the text
// arena, and growing the table never re-hashes. Nothing in the slots is a
// Go pointer, so a vocabulary of millions of terms costs the garbage
// collector nothing. Posting list headers live in fixed-size pages, so the
// vocabulary grows without copying them.
type termTable struct {
	slots []termSlot
	arena []byte   // term texts back to back
	offs  []uint32 // id -> start of its text in arena; offs[n] is the end
	pages [][]postingList
	n     uint32
	slab  []byte // carved into the first buffer of each new posting list
	// shared says slots is read-only memory (a mapped snapshot's): the
	// first term added copies it. arena and offs may be too; they have
	// no spare capacity, so appending to them copies them.
	shared bool
	// lazy, when not nil, says which posting lists a snapshot gave were
	// validated yet.
	lazy *lazyCheck
}

// lazyCheck validates a loaded snapshot's posting lists as they are first
// read, instead of all of them at load: a recall reads a few dozen of
// hundreds of thousands. Readers call ok concurrently, so its bitsets are
// atomic; a list found bad reads as absent (it cannot come from a
// snapshot WriteTo wrote, whose checksum held). Anything that changes the
// table first calls checkAll, under the exclusion writers have, which
// empties the bad lists and drops the lazyCheck.
type lazyCheck struct {
	nSlots    int
	done, bad []atomic.Uint64 // bit id: validated; found bad
}

func newLazyCheck(terms, nSlots int) *lazyCheck {
	w := (terms + 63) / 64
	return &lazyCheck{nSlots: nSlots, done: make([]atomic.Uint64, w), bad: make([]atomic.Uint64, w)}
}

// ok validates the list p of term id if that was not done yet, and
// reports whether it is sound.
func (l *lazyCheck) ok(id uint32, p *postingList) bool {
	w, bit := id/64, uint64(1)<<(id%64)
	if l.done[w].Load()&bit == 0 {
		if p.validate(l.nSlots) != nil {
			l.bad[w].Or(bit)
		}
		l.done[w].Or(bit)
	}
	return l.bad[w].Load()&bit == 0
}

// list returns the posting list of term id, or nil when it is one a
// snapshot gave and it is bad. Safe for concurrent readers.
func (t *termTable) list(id uint32) *postingList {
	p := t.post(id)
	if t.lazy != nil && !t.lazy.ok(id, p) {
		return nil
	}
	return p
}

// checkAll validates every list not validated yet and empties the bad
// ones, so that the table can be changed and iterated freely; read is
// told how many bytes each list it validates holds. The caller excludes
// readers, as for any change.
func (t *termTable) checkAll(read func(int)) {
	if t.lazy == nil {
		return
	}
	for id := range t.n {
		p := t.post(id)
		read(len(p.data))
		if !t.lazy.ok(id, p) {
			*p = postingList{}
		}
	}
	t.lazy = nil
}

type termSlot struct {
	head uint64 // first eight bytes of the term, zero padded
	hash uint32 // low 32 bits of the term's hash
	id   uint32 // id + 1; 0 marks an empty slot
}

const pageBits = 14 // posting list headers per page: 16384

func newTermTable() termTable {
	return termTable{slots: make([]termSlot, 1024), offs: []uint32{0}}
}

// post returns the posting list of term id.
func (t *termTable) post(id uint32) *postingList {
	return &t.pages[id>>pageBits][id&(1<<pageBits-1)]
}

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

// find returns the slot of b (hash h) and true, or the empty slot where it
// would go and false. Two different terms share head and hash only if they
// are longer than eight bytes; those are compared in full.
func (t *termTable) find(h uint64, b []byte) (int, bool) {
	head, h32 := headOf(b), uint32(h)
	mask := uint32(len(t.slots) - 1)
	for i := h32 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id == 0 {
			return int(i), false
		}
		if s.hash == h32 && s.head == head &&
			(len(b) <= 8 || string(t.arena[t.offs[s.id-1]:t.offs[s.id]]) == string(b)) {
			return int(i), true
		}
	}
}

// lookup returns the posting list of b (hash h), or nil. It does not
// modify the table, so concurrent readers may call it.
func (t *termTable) lookup(h uint64, b []byte) *postingList {
	i, ok := t.find(h, b)
	if !ok {
		return nil
	}
	return t.list(t.slots[i].id - 1)
}

// numShards splits the vocabulary by hash so that PutBatch can insert
// into several term tables at once; each sees documents in slot order.
const (
	shardBits = 2
	numShards = 1 << shardBits
)

// shardOf picks a term's table from the top bits of its hash (the low
// bits place it within the table).
func shardOf(h uint64) int { return int(h >> (64 - shardBits)) }

// vocabulary is the sharded term dictionary of an index. Its hash is
// keyed with a random key of its own, which a snapshot records: the
// process that loads it takes the key with the tables, and finds terms
// where the writer placed them.
type vocabulary struct {
	key    sipKey
	shards [numShards]termTable
}

func newVocabulary() *vocabulary {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	v := &vocabulary{key: sipKey{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])}}
	for i := range v.shards {
		v.shards[i] = newTermTable()
	}
	return v
}

func (v *vocabulary) hash(b []byte) uint64 { return sip13(v.key, b) }

// get returns the posting list of term s, or nil; safe for concurrent
// readers.
func (v *vocabulary) get(s string) *postingList {
	if len(s) == 0 || len(s) > maxCompoundBytes {
		return nil
	}
	var buf [maxCompoundBytes]byte
	b := append(buf[:0], s...)
	h := v.hash(b)
	return v.shards[shardOf(h)].lookup(h, b)
}

// checkAll validates what is left to validate of a loaded snapshot's
// posting lists (see lazyCheck), on all cores: the shards are
// independent. Every change to the index calls it first.
func (v *vocabulary) checkAll(read func(int)) {
	lazy := false
	for i := range v.shards {
		lazy = lazy || v.shards[i].lazy != nil
	}
	if !lazy {
		return
	}
	var wg sync.WaitGroup
	for i := range v.shards {
		wg.Go(func() { v.shards[i].checkAll(read) })
	}
	wg.Wait()
}

// each calls fn for every posting list.
func (v *vocabulary) each(fn func(*postingList)) {
	for i := range v.shards {
		v.shards[i].each(fn)
	}
}

// intern returns the id of b (hash h), adding the term if needed.
func (t *termTable) intern(h uint64, b []byte) uint32 {
	if (t.n+1)*5 > uint32(len(t.slots))*4 {
		t.grow()
	}
	i, ok := t.find(h, b)
	if ok {
		return t.slots[i].id - 1
	}
	if t.shared {
		t.slots, t.shared = slices.Clone(t.slots), false
	}
	s := &t.slots[i]
	id := t.n
	t.n++
	*s = termSlot{head: headOf(b), hash: uint32(h), id: id + 1}
	t.arena = append(t.arena, b...)
	t.offs = append(t.offs, uint32(len(t.arena)))
	if id>>pageBits >= uint32(len(t.pages)) {
		t.pages = append(t.pages, make([]postingList, 1<<pageBits))
	}
	return id
}

// newList returns the first buffer of a posting list. Most terms occur in
// one or two documents: they get a small piece of a shared slab instead of
// an allocation each.
func (t *termTable) newList() []byte {
	const first, slabSize = 8, 64 << 10
	if len(t.slab) < first {
		t.slab = make([]byte, slabSize)
	}
	b := t.slab[:0:first]
	t.slab = t.slab[first:]
	return b
}

// grow doubles the slot array, keeping the load factor at most 0.8. The
// slots keep 32 bits of hash, enough to place them without re-hashing in
// tables of up to 2^32 slots.
func (t *termTable) grow() { t.growTo(2 * len(t.slots)) }

// growTo moves the slots into an array of size slots, a power of two.
func (t *termTable) growTo(size int) {
	old := t.slots
	t.slots, t.shared = make([]termSlot, size), false
	mask := uint32(len(t.slots) - 1)
	for k := range old {
		s := &old[k]
		if s.id == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = *s
	}
}

// each calls fn for every term's posting list.
func (t *termTable) each(fn func(*postingList)) {
	for id := range t.n {
		fn(t.post(id))
	}
}

// docTerms aggregates the terms of one document before they reach the
// global table, in a small table that stays in cache.
type docTerms struct {
	buf   []byte
	ents  []docEnt
	table []int32 // index into ents + 1

	// The analyser's callback state while analyzeDoc runs: each token
	// of field counts towards lens[field] and is added with its hash in
	// vocab. sink is addToken bound to the docTerms at bound.
	vocab *vocabulary
	field int
	lens  [numFields]int
	sink  func(*token)
	bound *docTerms
}

// addToken counts token t in the current field.
func (d *docTerms) addToken(t *token) {
	d.lens[d.field]++
	d.add(d.vocab.hash(t.text), t.text, d.field)
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
