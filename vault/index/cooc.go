package index

import (
	"slices"
	"sync"
)

// The learned translation table.
//
// Memories mix Chinese and English: a Chinese memory's tags are often
// English, its title may name an English identifier, and an English memory
// may carry a Chinese alias. So the vault itself says which English words
// go with which Chinese ones. The index keeps, for every document, up to
// maxShort terms of its short fields (tags first, then aliases, then the
// title), and a query word learns its translations from the documents
// whose short fields contain it: the short-field terms of the other script
// that occur in them far more often than in the vault at large.
//
// The lists are written as each document takes its slot, so they are
// always up to date; the terms kept do not depend on the order documents
// or their terms arrive in, so every load path gives the same table. A
// query reads at most coocSample documents per word and caches what it
// learns until the index next changes.

// maxShort bounds the short-field terms kept per document: more than most
// titles and tags have, and 16 terms of a long title are enough to learn
// from.
const maxShort = 16

// shortTerms holds the kept short-field terms of every slot: their texts
// back to back, each preceded by a length byte (the high bit marks CJK).
type shortTerms struct {
	text []byte
	offs []uint32 // slot -> start in text; offs[len] is the end
}

// shortEnt is a short-field term of a document being added.
type shortEnt struct {
	class int // 0 tags, 1 aliases, 2 title: lower is kept first
	text  []byte
}

// add appends the next slot's list from its analysed terms.
func (st *shortTerms) add(ents []docEnt, buf []byte) {
	if len(st.offs) == 0 {
		st.offs = append(st.offs, 0)
	}
	var pick [maxShort]shortEnt
	n := 0
	for k := range ents {
		e := &ents[k]
		if !isShort(e.tf) || e.end-e.start > 0x7f {
			continue // the length byte has seven bits
		}
		c := shortEnt{class: 2, text: buf[e.start:e.end]}
		switch {
		case e.tf[fieldTags] > 0:
			c.class = 0
		case e.tf[fieldAlias] > 0:
			c.class = 1
		}
		// Keep the maxShort least by (class, text): insertion into a
		// small sorted array.
		if n == maxShort && !shortLess(c, pick[n-1]) {
			continue
		}
		i := min(n, maxShort-1)
		for i > 0 && shortLess(c, pick[i-1]) {
			pick[i] = pick[i-1]
			i--
		}
		pick[i] = c
		n = min(n+1, maxShort)
	}
	for _, c := range pick[:n] {
		l := byte(len(c.text))
		if termIsCJK(c.text) {
			l |= 0x80
		}
		st.text = append(st.text, l)
		st.text = append(st.text, c.text...)
	}
	st.offs = append(st.offs, uint32(len(st.text)))
}

func shortLess(x, y shortEnt) bool {
	if x.class != y.class {
		return x.class < y.class
	}
	return string(x.text) < string(y.text)
}

// each calls fn with every kept term of slot and whether it is CJK.
func (st *shortTerms) each(slot uint32, fn func(text []byte, cjk bool)) {
	if int(slot)+1 >= len(st.offs) {
		return
	}
	b := st.text[st.offs[slot]:st.offs[slot+1]]
	for i := 0; i < len(b); {
		l := int(b[i] & 0x7f)
		fn(b[i+1:i+1+l], b[i]&0x80 != 0)
		i += 1 + l
	}
}

// remap moves slot s to remap[s] (or drops it when ^0), for compaction;
// live slots keep their order.
func (st *shortTerms) remap(remap []uint32, nSlots int) {
	var ns shortTerms
	ns.offs = make([]uint32, 1, nSlots+1)
	for s, to := range remap {
		if to == ^uint32(0) || s+1 >= len(st.offs) {
			continue
		}
		ns.text = append(ns.text, st.text[st.offs[s]:st.offs[s+1]]...)
		ns.offs = append(ns.offs, uint32(len(ns.text)))
	}
	*st = ns
}

// isShort reports whether a document's term frequencies put the term in
// a short field.
func isShort(tf [numFields]uint8) bool {
	return tf[fieldTitle]|tf[fieldAlias]|tf[fieldTags] != 0
}

// termIsCJK reports whether an index term is CJK text (a bigram or a lone
// character); Latin terms start with an ASCII byte or a Latin letter.
func termIsCJK(b []byte) bool {
	if len(b) == 0 || b[0] < 0xE2 {
		return false
	}
	r, _ := decode(string(b[:min(len(b), 4)]), 0)
	return isCJK(r)
}

// learned is one translation a query word learned from the vault.
type learned struct {
	text string
	conf float64 // in (0, 1]: how much more often than by chance
}

// coocCache holds what query words learned, until the index changes.
type coocCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string][]learned
}

// maxCoocCache bounds the cache; it starts afresh when full.
const maxCoocCache = 4096

// Limits of a look-up: documents read per word, postings examined to find
// them, and the support a translation needs (documents that have both
// words).
const (
	coocSample  = 64
	coocScan    = 1024
	coocSupport = 2
)

// translations returns the short-field terms of the other script that
// go with term in the vault, most confident first, at most max of them
// and none below minConf. It is safe for concurrent searches.
func (ix *Index) translations(term string, maxN int, minConf float64) []learned {
	c := &ix.cooc
	c.mu.Lock()
	if c.gen != ix.gen || c.m == nil || len(c.m) >= maxCoocCache {
		c.m, c.gen = map[string][]learned{}, ix.gen
	}
	got, ok := c.m[term]
	c.mu.Unlock()
	if !ok {
		got = ix.learn(term)
		c.mu.Lock()
		if c.gen == ix.gen {
			c.m[term] = got
		}
		c.mu.Unlock()
	}
	var out []learned
	for _, l := range got {
		if len(out) == maxN || l.conf < minConf {
			break
		}
		out = append(out, l)
	}
	return out
}

// learn computes term's translations (see translations), uncapped.
func (ix *Index) learn(term string) []learned {
	pl := ix.terms.get(term)
	df := ix.liveDF(pl)
	if df < coocSupport {
		return nil
	}
	// A word in a large share of a large vault is no topic of its own
	// (the same rule skips such expansions).
	if ix.live >= ix.p.expandMinN && float64(df) > ix.p.expandMaxDF*float64(ix.live) {
		return nil
	}
	wantCJK := !termIsCJK([]byte(term))
	type count struct {
		n    int
		text []byte // in ix.short.text
	}
	counts := map[uint64]count{}
	n := 0
	b := pl.data
	slot := uint32(0)
	for i, seen := 0, 0; i < len(b) && n < coocSample && seen < coocScan; seen++ {
		var v uint64
		v, i = uvarint(b, i)
		slot += uint32(v >> 1)
		short := false
		if v&1 != 0 {
			short = b[i]|b[i+1]|b[i+2] != 0
			i += 3
		}
		_, i = uvarint(b, i)
		if !short || !ix.alive[slot] {
			continue
		}
		n++
		ix.short.each(slot, func(text []byte, cjk bool) {
			if cjk == wantCJK {
				h := ix.terms.hash(text)
				c := counts[h]
				c.n++
				c.text = text
				counts[h] = c
			}
		})
	}
	total := float64(ix.live)
	var out []learned
	for h, c := range counts {
		if c.n < coocSupport {
			continue
		}
		other := ix.terms.shards[shardOf(h)].lookup(h, c.text)
		if other == nil {
			continue
		}
		base := float64(ix.liveDF(other)) / total
		// P(other | term) less P(other): 0 when independent, near 1
		// when every document with the term has it and it is rare. One
		// pseudo-document without it keeps two lone documents from
		// making a certainty.
		p := float64(c.n) / float64(n+1)
		conf := p - base
		if conf <= 0 {
			continue
		}
		out = append(out, learned{text: string(c.text), conf: conf})
	}
	slices.SortFunc(out, func(x, y learned) int {
		switch {
		case x.conf > y.conf:
			return -1
		case x.conf < y.conf:
			return 1
		}
		if x.text < y.text {
			return -1
		}
		return 1
	})
	return out
}
