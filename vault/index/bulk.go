package index

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync"
)

// Bulk fills a new index with prepared documents in batches, for loading a
// whole vault. Put takes each document's slot at once but holds its
// postings back; Flush sorts the held postings by where their terms live
// in the vocabulary and adds them term by term. A term's postings within a
// batch then cost one look-up, one posting list header and one list tail
// instead of one each per document, and the look-ups walk the term tables
// in order instead of at random: the vocabulary is far larger than the CPU
// caches, and those misses were most of the cost of inserting. A full
// batch is flushed on a goroutine of its own while Put fills the next.
//
// Until Flush returns, the index must not be searched or changed other
// than through the Bulk. The result is the same as PutPrepared for each
// document in order.
type Bulk struct {
	ix       *Index
	buf      *bulkBuf // being filled
	spare    *bulkBuf // being flushed, or free once flushing is done
	flushing sync.WaitGroup
	tmp      []bulkRec   // radix sort scratch, only for the flush under way
	cnt      [2][256]int // radix sort counts, likewise
	max      int         // postings held before a flush: bulkBatch (tests use less)
}

// bulkBuf is one batch of held-back postings.
type bulkBuf struct {
	recs []bulkRec // in slot order
	text []byte    // term texts of recs
}

// bulkRec is one held-back posting.
type bulkRec struct {
	hash uint64
	head uint64 // headOf the term: most terms are compared without their text
	slot uint32
	off  uint32 // term text is text[off : off+n] if n > 8, else in head
	n    uint8
	tf   [numFields]uint8
	key  uint16 // sort key, set by flush
}

// bulkBatch is how many postings a flush handles at a time. The more a
// batch holds, the more of each term's postings share one look-up: on the
// 100k-memory load benchmark 2^19 took about 5% less CPU than 2^17, and
// 2^20 no less than 2^19. Two batches and the sort scratch, 16 MB each,
// live only during a load.
const bulkBatch = 1 << 19

// NewBulk returns a Bulk that inserts into ix.
func (ix *Index) NewBulk() *Bulk {
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	return &Bulk{ix: ix, buf: new(bulkBuf), max: bulkBatch}
}

// Put adds or replaces the document p was prepared from, like
// PutPrepared; its postings reach the index by the next Flush. p can be
// reused once Put returns.
func (b *Bulk) Put(id DocID, p *Prepared) {
	slot := b.ix.newSlot(id, p.lens, p.doc.ents, p.doc.buf)
	buf := b.buf
	if n := len(buf.recs) + len(p.doc.ents); n > cap(buf.recs) {
		// Double, up to a batch: append grows big slices by only a
		// quarter, which would copy a batch about five times over.
		c := min(max(2*cap(buf.recs), 1024, n), max(b.max+b.max/8, n))
		buf.recs = append(make([]bulkRec, 0, c), buf.recs...)
	}
	if n := len(buf.text) + len(p.doc.buf); n > cap(buf.text) {
		c := min(max(2*cap(buf.text), 8192, n), max(8*b.max, n))
		buf.text = append(make([]byte, 0, c), buf.text...)
	}
	for k := range p.doc.ents {
		e := &p.doc.ents[k]
		term := p.doc.buf[e.start:e.end]
		off := uint32(len(buf.text))
		if len(term) > 8 {
			// Shorter terms are whole in head.
			buf.text = append(buf.text, term...)
		}
		buf.recs = append(buf.recs, bulkRec{hash: e.hash, head: headOf(term), slot: slot,
			off: off, n: uint8(len(term)), tf: e.tf})
	}
	if len(buf.recs) >= b.max {
		// Flush the full batch on another goroutine while this one
		// fills the other buffer: a loader keeps its readers busy.
		// Flushing touches only the vocabulary, Put only the slots.
		b.flushing.Wait()
		if b.spare == nil {
			b.spare = new(bulkBuf)
		}
		b.buf, b.spare = b.spare, buf
		b.flushing.Go(func() { b.flush(buf, 1) })
	}
}

// Flush adds all held-back postings to the index. It inserts into the
// shards on all cores: the last batch ends a load, and nothing else runs
// then.
func (b *Bulk) Flush() {
	b.flushing.Wait()
	b.flush(b.buf, runtime.GOMAXPROCS(0))
	// Let the batches go now, not when the Bulk does: a loader trims the
	// index next, which copies every posting list, and 48 MB of batches
	// kept alive through that were most of a 100k load's peak heap.
	b.buf, b.spare, b.tmp = new(bulkBuf), nil, nil
	b.ix.maybeCompact()
}

// flush adds the postings of buf to the vocabulary and empties buf,
// inserting into the shards on up to workers goroutines.
func (b *Bulk) flush(buf *bulkBuf, workers int) {
	if len(buf.recs) == 0 {
		return
	}
	v := b.ix.terms
	// Sort key: the shard, then the top bits of the term's place in its
	// table. LSD radix sort is stable, so each term's postings stay in
	// slot order.
	var shift [numShards]uint
	var mask [numShards]uint32
	for s := range v.shards {
		n := len(v.shards[s].slots)
		mask[s] = uint32(n - 1)
		shift[s] = uint(max(0, bits.Len(uint(n))-1-(16-shardBits)))
	}
	clear(b.cnt[0][:])
	clear(b.cnt[1][:])
	var at [numShards + 1]int // where each shard's postings start once sorted
	for k := range buf.recs {
		r := &buf.recs[k]
		s := shardOf(r.hash)
		at[s+1]++
		r.key = uint16(s<<(16-shardBits)) | uint16((uint32(r.hash)&mask[s])>>shift[s])
		b.cnt[0][r.key&0xff]++
		b.cnt[1][r.key>>8]++
	}
	if cap(b.tmp) < len(buf.recs) {
		b.tmp = make([]bulkRec, len(buf.recs))
	}
	src, dst := buf.recs, b.tmp[:len(buf.recs)]
	for pass := range 2 {
		cnt := &b.cnt[pass]
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		shift := 8 * pass
		for k := range src {
			d := src[k].key >> shift & 0xff
			dst[cnt[d]] = src[k]
			cnt[d]++
		}
		src, dst = dst, src
	}
	// src holds the sorted postings (two passes: back in buf.recs), shard
	// by shard. The shards' term tables are independent, so each run of
	// a shard's postings can be inserted on a goroutine of its own.
	for s := range numShards {
		at[s+1] += at[s]
	}
	if workers <= 1 {
		b.insert(buf, src)
	} else {
		var wg sync.WaitGroup
		sem := make(chan struct{}, workers)
		for s := range numShards {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				b.insert(buf, src[at[s]:at[s+1]])
			})
		}
		wg.Wait()
	}
	buf.recs, buf.text = buf.recs[:0], buf.text[:0]
}

// insert adds the sorted postings recs (texts in buf) to the vocabulary.
func (b *Bulk) insert(buf *bulkBuf, recs []bulkRec) {
	v := b.ix.terms
	var t *termTable
	var p *postingList
	var last *bulkRec
	var short [8]byte
	for k := range recs {
		r := &recs[k]
		if last == nil || r.hash != last.hash || r.head != last.head || r.n != last.n ||
			r.n > 8 && string(buf.text[r.off:r.off+uint32(r.n)]) != string(buf.text[last.off:last.off+uint32(last.n)]) {
			var term []byte
			if r.n > 8 {
				term = buf.text[r.off : r.off+uint32(r.n)]
			} else {
				binary.LittleEndian.PutUint64(short[:], r.head)
				term = short[:r.n]
			}
			t = &v.shards[shardOf(r.hash)]
			p = t.post(t.intern(r.hash, term))
			if cap(p.data) == 0 {
				p.data = t.newList()
			}
		}
		p.add(r.slot, r.tf)
		last = r
	}
}
