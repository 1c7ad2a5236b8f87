package index

import (
	"sync"
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
	p.data = appendUvarint(p.data, v)
	if meta {
		p.data = append(p.data, tf[fieldTitle], tf[fieldAlias], tf[fieldTags])
	}
	p.data = appendUvarint(p.data, uint64(tf[fieldBody]))
	p.last = slot
	p.df++
}

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

	terms map[string]uint32
	posts []postingList

	ids    []DocID // slot -> id
	alive  []bool  // slot -> live
	lens   [numFields][]uint16
	slotOf map[DocID]uint32
	live   int
	dead   int
	lenSum [numFields]float64 // over live slots

	// Writer scratch.
	an      analyzer
	scratch [][numFields]uint8 // term -> tf of the document being added
	touched []uint32

	pool sync.Pool // *searchScratch
}

// New returns an empty index that expands queries with the embedded default
// dictionary.
func New() *Index {
	d, err := parseDictionary(defaultTerms)
	if err != nil {
		// The dictionary is embedded and checked by tests.
		panic("index: embedded terms.txt: " + err.Error())
	}
	return newIndex(defaultParams(), d)
}

func newIndex(p params, d *dictionary) *Index {
	return &Index{
		p:      p,
		dict:   d,
		terms:  map[string]uint32{},
		slotOf: map[DocID]uint32{},
	}
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int { return ix.live }

// Put adds the document, replacing any document with the same id.
func (ix *Index) Put(id DocID, d Doc) {
	if old, ok := ix.slotOf[id]; ok {
		ix.retire(old)
	}
	slot := uint32(len(ix.ids))
	ix.ids = append(ix.ids, id)
	ix.alive = append(ix.alive, true)
	ix.slotOf[id] = slot

	var lens [numFields]int
	lens[fieldTitle] = ix.addField(fieldTitle, d.Title)
	for _, a := range d.Aliases {
		lens[fieldAlias] += ix.addField(fieldAlias, a)
	}
	for _, t := range d.Tags {
		lens[fieldTags] += ix.addField(fieldTags, t)
	}
	lens[fieldBody] = ix.addField(fieldBody, d.Body)

	for _, t := range ix.touched {
		ix.posts[t].add(slot, ix.scratch[t])
		ix.scratch[t] = [numFields]uint8{}
	}
	ix.touched = ix.touched[:0]
	for f, n := range lens {
		n = min(n, 0xffff)
		ix.lens[f] = append(ix.lens[f], uint16(n))
		ix.lenSum[f] += float64(n)
	}
	ix.live++
	ix.maybeCompact()
}

// addField counts the terms of one field of the document being added and
// returns the field length in terms.
func (ix *Index) addField(f int, text string) int {
	n := 0
	ix.an.analyze(text, func(t *token) {
		n++
		id, ok := ix.terms[string(t.text)]
		if !ok {
			id = uint32(len(ix.posts))
			ix.terms[string(t.text)] = id
			ix.posts = append(ix.posts, postingList{})
			ix.scratch = append(ix.scratch, [numFields]uint8{})
		}
		tf := &ix.scratch[id]
		if *tf == ([numFields]uint8{}) {
			ix.touched = append(ix.touched, id)
		}
		if tf[f] < maxTF {
			tf[f]++
		}
	})
	return n
}

// Delete removes the document; deleting an unknown id does nothing.
func (ix *Index) Delete(id DocID) {
	slot, ok := ix.slotOf[id]
	if !ok {
		return
	}
	delete(ix.slotOf, id)
	ix.retire(slot)
	ix.maybeCompact()
}

func (ix *Index) retire(slot uint32) {
	ix.alive[slot] = false
	for f := range ix.lenSum {
		ix.lenSum[f] -= float64(ix.lens[f][slot])
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
	for t := range ix.posts {
		old := ix.posts[t]
		np := postingList{data: buf[:0]}
		old.each(func(slot uint32, tf [numFields]uint8) {
			if s := remap[slot]; s != ^uint32(0) {
				np.add(s, tf)
			}
		})
		buf = old.data // reuse the old buffer for the next list
		ix.posts[t] = postingList{data: append([]byte(nil), np.data...), df: np.df, last: np.last}
	}
	ix.dead = 0
	recomputeSums(ix)
}

func recomputeSums(ix *Index) {
	ix.lenSum = [numFields]float64{}
	for f := range ix.lens {
		for _, l := range ix.lens[f] {
			ix.lenSum[f] += float64(l)
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
