package index

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// DocID identifies a document. The vault assigns them; they need not be dense.
type DocID uint32

// Doc is what the index sees of a memory. All fields are plain text.
type Doc struct {
	Title   string
	Aliases []string
	Tags    []string
	Body    string // plain text, no Markdown
}

// Fields of a document, in posting order.
const (
	fieldTitle = iota
	fieldAlias
	fieldTags
	fieldBody
	numFields
)

// allShards selects every shard of the vocabulary.
const allShards = 1<<numShards - 1

// maxTF caps per-field term frequencies; BM25 saturates long before.
const maxTF = 255

// postingList is the compact posting list of one term: for each document
// slot in increasing order, a uvarint of (slot delta << 1 | hasOtherFields),
// then either the body tf (uvarint) or three bytes of title, alias and tag tf
// followed by the body tf (uvarint).
type postingList struct {
	data []byte
	df   uint32
	last uint32
}

func (p *postingList) add(slot uint32, tf [numFields]uint8) {
	delta := slot - p.last
	meta := tf[fieldTitle]|tf[fieldAlias]|tf[fieldTags] != 0
	v := uint64(delta) << 1
	if meta {
		v |= 1
	}
	b := p.data
	if cap(b)-len(b) < maxPostingBytes {
		// Near the end of the buffer (always, in the small first
		// buffers of newList): append, which grows it only if needed.
		b = appendUvarint(b, v)
		if meta {
			b = append(b, tf[fieldTitle], tf[fieldAlias], tf[fieldTags])
		}
		p.data = appendUvarint(b, uint64(tf[fieldBody]))
		p.last = slot
		p.df++
		return
	}
	// A posting takes at most maxPostingBytes: with that much room,
	// write the bytes in place instead of appending them one by one.
	n := len(b)
	b = b[:n+maxPostingBytes]
	for v >= 0x80 {
		b[n] = byte(v) | 0x80
		v >>= 7
		n++
	}
	b[n] = byte(v)
	n++
	if meta {
		b[n], b[n+1], b[n+2] = tf[fieldTitle], tf[fieldAlias], tf[fieldTags]
		n += 3
	}
	if body := tf[fieldBody]; body >= 0x80 {
		b[n], b[n+1] = body|0x80, body>>7
		n += 2
	} else {
		b[n] = body
		n++
	}
	p.data = b[:n]
	p.last = slot
	p.df++
}

// maxPostingBytes is the longest posting add writes: a five-byte uvarint
// of a 33-bit delta field, three field tfs and a two-byte body tf.
const maxPostingBytes = 5 + 3 + 2

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// uvarint decodes a uvarint at b[i:], returning the value and the next index.
// The encoder is ours, so the input is trusted.
func uvarint(b []byte, i int) (uint64, int) {
	c := b[i]
	if c < 0x80 {
		return uint64(c), i + 1
	}
	v := uint64(c & 0x7f)
	shift := uint(7)
	for {
		i++
		c = b[i]
		if c < 0x80 {
			return v | uint64(c)<<shift, i + 1
		}
		v |= uint64(c&0x7f) << shift
		shift += 7
	}
}

// Index is an in-memory inverted index with BM25F scoring and bilingual
// query expansion.
//
// Documents live in slots; replacing a document retires its slot and takes a
// new one, and retired slots are dropped from the postings by an occasional
// compaction, so Put and Delete never scan posting lists in the common case.
//
// Put and Delete need external exclusion; Search is safe for any number of
// concurrent readers while no Put or Delete is in flight.
type Index struct {
	p    params
	dict *dictionary
	// general returns the general dictionary, or nil to use none.
	general func() generalLexicon

	terms *vocabulary

	ids    []DocID            // slot -> id
	alive  []bool             // slot -> live
	lens   [numFields][]uint8 // slot -> length code (see lengthCode)
	slotOf map[DocID]uint32
	// slotsByID is set when a snapshot's load found every slot s live
	// and holding document s (how a bulk build lays an index out): then
	// slotOf is not built, 100k map insertions a warm load of a large
	// vault saves, and slot answers from the slot numbers. Anything that
	// changes the slots builds slotOf first (buildSlots).
	slotsByID bool
	live      int
	dead      int
	lenSum    [numFields]float64 // over live slots

	// Writer scratch.
	an  analyzer
	doc docTerms
	ins inserter

	pool sync.Pool // *searchScratch

	// gen counts changes, so that caches of derived data know when
	// they are stale; cooc caches learned translations.
	gen   uint64
	short shortTerms
	cooc  coocCache

	// patchLists is how many posting lists the last Patch wrote anew,
	// for tests.
	patchLists int

	// release, when set (SetSnapshotRelease), is called after every
	// releaseEvery bytes of posting lists that a pass over all of them
	// reads; readBytes counts them.
	release      func()
	releaseEvery int64
	readBytes    atomic.Int64
}

// SetSnapshotRelease sets fn to be called, possibly from several
// goroutines at once, after every `every` bytes of posting lists that a
// pass over all of them reads (the check of a loaded snapshot's lists
// before a change, a Patch's layout): a caller whose snapshot is a file
// mapping lets the kernel drop those pages as the pass goes, instead of
// holding all of them at once beside what the pass builds. A nil fn
// clears it.
func (ix *Index) SetSnapshotRelease(fn func(), every int) {
	ix.release, ix.releaseEvery = fn, int64(max(every, 1))
	ix.readBytes.Store(0)
}

// noteRead counts n bytes of posting lists read by a pass over all of
// them (see SetSnapshotRelease).
func (ix *Index) noteRead(n int) {
	if ix.release == nil || n == 0 {
		return
	}
	if ix.readBytes.Add(int64(n)) >= ix.releaseEvery {
		ix.readBytes.Store(0) // two passing at once both release: harmless
		ix.release()
	}
}

// New returns an empty index that expands queries with the embedded default
// dictionary.
func New() *Index {
	d, err := embeddedDictionary()
	if err != nil {
		// The dictionary is embedded and checked by tests.
		panic("index: embedded terms.txt: " + err.Error())
	}
	return newIndex(defaultParams(), d)
}

// NewWithTerms returns an empty index whose dictionary is the embedded one
// plus extra, in the terms.txt format (for example a project's own
// synonyms). A malformed line yields a *DictError.
func NewWithTerms(extra string) (*Index, error) {
	d, err := parseDictionary(defaultTerms + "\n" + extra)
	if err != nil {
		var de *DictError
		if errors.As(err, &de) {
			de.Line -= strings.Count(defaultTerms, "\n") + 1
		}
		return nil, fmt.Errorf("index: extra terms: %w", err)
	}
	return newIndex(defaultParams(), d), nil
}

func newIndex(p params, d *dictionary) *Index {
	return &Index{
		p:       p,
		dict:    d,
		general: func() generalLexicon { return generalDictionary() },
		terms:   newVocabulary(),
		slotOf:  map[DocID]uint32{},
	}
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int { return ix.live }

// Put adds the document, replacing any document with the same id.
func (ix *Index) Put(id DocID, d Doc) {
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	lens := ix.analyzeDoc(&ix.an, &ix.doc, d)
	slot := ix.newSlot(id, lens, ix.doc.ents, ix.doc.buf)
	ix.ins.insertDoc(ix.terms, allShards, slot, ix.doc.ents, ix.doc.buf)
	ix.maybeCompact()
}

// analyzeDoc aggregates the terms of d into doc and returns the field
// lengths. It reads only the term table's hash seed, so PutBatch workers
// may call it concurrently with their own analyzer and docTerms.
func (ix *Index) analyzeDoc(an *analyzer, doc *docTerms, d Doc) [numFields]int {
	doc.reset()
	doc.vocab, doc.lens = ix.terms, [numFields]int{}
	if doc.bound != doc {
		// A closure made here would escape through an and cost an
		// allocation per field; the method value is made once.
		doc.sink, doc.bound = doc.addToken, doc
	}
	field := func(f int, text string) {
		doc.field = f
		an.analyze(text, doc.sink)
	}
	field(fieldTitle, d.Title)
	for _, a := range d.Aliases {
		field(fieldAlias, a)
	}
	for _, t := range d.Tags {
		field(fieldTags, t)
	}
	field(fieldBody, d.Body)
	return doc.lens
}

// newSlot retires any document with this id and takes a fresh slot.
func (ix *Index) newSlot(id DocID, lens [numFields]int, ents []docEnt, buf []byte) uint32 {
	ix.buildSlots()
	ix.gen++
	ix.short.add(ents, buf)
	if old, ok := ix.slotOf[id]; ok {
		ix.retire(old)
	}
	slot := uint32(len(ix.ids))
	ix.ids = append(ix.ids, id)
	ix.alive = append(ix.alive, true)
	ix.slotOf[id] = slot
	for f, n := range lens {
		c := lengthCode(n)
		ix.lens[f] = append(ix.lens[f], c)
		ix.lenSum[f] += float64(codeLength[c])
	}
	ix.live++
	return slot
}

// inserter adds analysed documents' postings to some shards of the
// vocabulary. PutBatch runs one per CPU on disjoint shards.
type inserter struct {
	tids []uint32
	sink uint32 // keeps the prefetching loads alive
}

// insertDoc adds the postings of one analysed document (terms ents, text
// in buf) to the shards whose bit is set in shards.
//
// The term tables and the posting lists are far larger than the CPU
// caches, so each term costs cache misses: its slot, its posting list
// header and the list's tail. Touching each of them for all the document's
// terms in a loop of independent loads, before the dependent work, lets
// the CPU have many misses in flight at once instead of one at a time.
func (in *inserter) insertDoc(v *vocabulary, shards uint, slot uint32, ents []docEnt, buf []byte) {
	var sink uint32
	for k := range ents {
		h := ents[k].hash
		if shards&(1<<shardOf(h)) != 0 {
			t := &v.shards[shardOf(h)]
			sink += t.slots[h&uint64(len(t.slots)-1)].id
		}
	}
	tids := in.tids[:0]
	for k := range ents {
		e := &ents[k]
		if shards&(1<<shardOf(e.hash)) != 0 {
			tids = append(tids, v.shards[shardOf(e.hash)].intern(e.hash, buf[e.start:e.end]))
		}
	}
	j := 0
	for k := range ents {
		if sh := shardOf(ents[k].hash); shards&(1<<sh) != 0 {
			sink += v.shards[sh].post(tids[j]).df
			j++
		}
	}
	j = 0
	for k := range ents {
		if sh := shardOf(ents[k].hash); shards&(1<<sh) != 0 {
			if p := v.shards[sh].post(tids[j]); len(p.data) > 0 {
				sink += uint32(p.data[len(p.data)-1])
			}
			j++
		}
	}
	j = 0
	for k := range ents {
		if sh := shardOf(ents[k].hash); shards&(1<<sh) != 0 {
			t := &v.shards[sh]
			p := t.post(tids[j])
			if cap(p.data) == 0 {
				p.data = t.newList()
			}
			p.add(slot, ents[k].tf)
			j++
		}
	}
	in.tids = tids[:0]
	in.sink = sink
}

// slot returns the slot of the live document id.
func (ix *Index) slot(id DocID) (uint32, bool) {
	if ix.slotsByID {
		if uint64(id) < uint64(len(ix.ids)) {
			return uint32(id), true
		}
		return 0, false
	}
	s, ok := ix.slotOf[id]
	return s, ok
}

// buildSlots builds slotOf where a snapshot's load left it implied (see
// slotsByID), before anything changes the slots.
func (ix *Index) buildSlots() {
	if !ix.slotsByID {
		return
	}
	m := make(map[DocID]uint32, len(ix.ids))
	for s, id := range ix.ids {
		m[id] = uint32(s)
	}
	ix.slotOf, ix.slotsByID = m, false
}

// Delete removes the document; deleting an unknown id does nothing.
func (ix *Index) Delete(id DocID) {
	ix.buildSlots()
	slot, ok := ix.slotOf[id]
	if !ok {
		return
	}
	delete(ix.slotOf, id)
	ix.retire(slot)
	ix.maybeCompact()
}

func (ix *Index) retire(slot uint32) {
	ix.buildSlots()
	ix.gen++
	ix.alive[slot] = false
	for f := range ix.lenSum {
		ix.lenSum[f] -= float64(codeLength[ix.lens[f][slot]])
	}
	ix.live--
	ix.dead++
}

// maybeCompact drops retired slots from the postings once they make up a
// fifth of all slots, so the cost is amortised over many updates.
func (ix *Index) maybeCompact() {
	if ix.dead < 1024 || ix.dead*5 < len(ix.ids) {
		return
	}
	ix.compact()
}

// compact renumbers live slots densely and rewrites every posting list.
func (ix *Index) compact() {
	ix.buildSlots()
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	remap := make([]uint32, len(ix.ids))
	n := uint32(0)
	for s, ok := range ix.alive {
		if ok {
			remap[s] = n
			ix.ids[n] = ix.ids[s]
			for f := range ix.lens {
				ix.lens[f][n] = ix.lens[f][s]
			}
			ix.slotOf[ix.ids[n]] = n
			n++
		} else {
			remap[s] = ^uint32(0)
		}
	}
	ix.ids = ix.ids[:n]
	ix.alive = ix.alive[:n]
	for s := range ix.alive {
		ix.alive[s] = true
	}
	for f := range ix.lens {
		ix.lens[f] = ix.lens[f][:n]
	}
	var buf []byte
	ix.terms.each(func(pl *postingList) {
		np := postingList{data: buf[:0]}
		pl.each(func(slot uint32, tf [numFields]uint8) {
			if s := remap[slot]; s != ^uint32(0) {
				np.add(s, tf)
			}
		})
		buf = np.data
		if len(np.data) <= cap(pl.data) {
			// Rewrite in place: the list only shrinks.
			np.data = append(pl.data[:0], np.data...)
		} else {
			np.data = append([]byte(nil), np.data...)
		}
		*pl = np
	})
	ix.short.remap(remap, int(n))
	ix.dead = 0
	recomputeSums(ix)
}

func recomputeSums(ix *Index) {
	ix.lenSum = [numFields]float64{}
	for f := range ix.lens {
		for s, c := range ix.lens[f] {
			if !ix.alive[s] {
				continue
			}
			ix.lenSum[f] += float64(codeLength[c])
		}
	}
}

// each decodes the posting list.
func (p *postingList) each(fn func(slot uint32, tf [numFields]uint8)) {
	b := p.data
	slot := uint32(0)
	for i := 0; i < len(b); {
		var v, body uint64
		v, i = uvarint(b, i)
		slot += uint32(v >> 1)
		var tf [numFields]uint8
		if v&1 != 0 {
			tf[fieldTitle], tf[fieldAlias], tf[fieldTags] = b[i], b[i+1], b[i+2]
			i += 3
		}
		body, i = uvarint(b, i)
		tf[fieldBody] = uint8(body)
		fn(slot, tf)
	}
}

// liveDF is the number of live documents that contain the term of pl.
// pl.df also counts the postings of retired slots until a compaction drops
// them; scoring with it would make a long-lived index (a server that took
// writes) rank differently from a fresh load of the same documents. With
// no retired slot the two are equal and nothing is scanned.
func (ix *Index) liveDF(pl *postingList) int {
	if pl == nil {
		return 0
	}
	if ix.dead == 0 {
		return int(pl.df)
	}
	n := 0
	pl.each(func(slot uint32, _ [numFields]uint8) {
		if ix.alive[slot] {
			n++
		}
	})
	return n
}

// hasLive reports whether a live document contains the term of pl.
func (ix *Index) hasLive(pl *postingList) bool {
	if pl == nil || pl.df == 0 {
		return false
	}
	if ix.dead == 0 {
		return true
	}
	found := false
	b := pl.data
	slot := uint32(0)
	for i := 0; i < len(b) && !found; {
		var v uint64
		v, i = uvarint(b, i)
		slot += uint32(v >> 1)
		if v&1 != 0 {
			i += 3
		}
		_, i = uvarint(b, i)
		found = ix.alive[slot]
	}
	return found
}

// Field lengths are stored as one-byte codes, as Lucene does with norms:
// exact up to 31 terms, then in steps of about 3.5% up to 65535 and beyond.
// BM25 barely notices the rounding, and a byte per field keeps the lengths
// of 100k documents in the CPU cache while Search scores postings.
var codeLength = func() (t [256]uint32) {
	for c := range 32 {
		t[c] = uint32(c)
	}
	for c := 32; c < 256; c++ {
		t[c] = uint32(math.Round(32 * math.Pow(1.0348, float64(c-31))))
	}
	return t
}()

// lengthCode returns the largest code whose length does not exceed n.
func lengthCode(n int) uint8 {
	if n < 32 {
		return uint8(n)
	}
	c, _ := slices.BinarySearch(codeLength[:], uint32(n)+1)
	return uint8(c - 1)
}

// Trim gives back the spare capacity that appending left in the posting
// lists (up to half of each), by copying them back to back into one
// buffer. Call it after a bulk load. Later Puts still work: a trimmed list
// moves out on its next growth. Like Put, it needs external exclusion.
//
// The shards are copied on all cores, each into its own part of the
// buffer: this is the last step of a load, and nothing else runs then.
func (ix *Index) Trim() {
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	var from [numShards + 1]int
	for i := range ix.terms.shards {
		from[i+1] = from[i]
		ix.terms.shards[i].each(func(pl *postingList) { from[i+1] += len(pl.data) })
	}
	arena := make([]byte, from[numShards])
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range ix.terms.shards {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			off := from[i]
			ix.terms.shards[i].each(func(pl *postingList) {
				if len(pl.data) == 0 {
					pl.data = nil
					return
				}
				end := off + copy(arena[off:], pl.data)
				pl.data = arena[off:end:end]
				off = end
			})
		})
	}
	wg.Wait()
	for i := range ix.terms.shards {
		ix.terms.shards[i].slab = nil
	}
}
